import type { Kafka } from 'kafkajs';
import { DEFAULTS } from '../config';
import { dlqTopicOf } from '../events/dlq-topic';
import type { Logger } from '../logger';
import { createDlqTopics, DAY_MS, dlqConfigOf, raiseDlqConfig } from './dlq-topics';
import {
  describeTopicConfigs,
  newTopicReplication,
  waitForLeaders,
  type NewTopicReplication,
} from './topic-configs';

export { DLQ_HEADROOM_BYTES } from './dlq-topics';
export { clusterReplication, type Replication } from './topic-configs';

export interface EnsureTopicsOptions {
  /** Source topics; each gets its DLQ topic `<topic>.dlq` too. */
  topics: string[];
  /** Partition count for source topics that do not exist yet (a DLQ topic has its source's). */
  partitions: number;
  /**
   * Replication factor of topics that do not exist yet; they get `min.insync.replicas` 2 with
   * 3 copies or more, else 1. Default: the cluster's (clusterReplication), whose
   * `min.insync.replicas` the new topics then pin, so a later change of the brokers' defaults
   * does not weaken them. Example: `{ replicationFactor: 1 }` for scratch topics.
   */
  replicationFactor?: number;
  /** Replication factor of the DLQ topics that do not exist yet. Default: `replicationFactor`. */
  dlqReplicationFactor?: number;
  /** How long to wait until every partition of the topics has a leader. Default: 30 s. */
  leaderTimeoutMs?: number;
  /**
   * `retention.ms` of the DLQ topics: set on creation, raised on an existing DLQ topic that
   * keeps messages for less. Default: BRIDGE_DLQ_RETENTION_DAYS' default, 30 days.
   */
  dlqRetentionMs?: number;
  /** Where a raised DLQ topic config is reported. Default: nowhere. */
  log?: Pick<Logger, 'info'>;
}

/**
 * Creates the source topics and their DLQ topics when missing. A DLQ topic has its source's
 * partition count and accepts messages at least as large as its source does (plus
 * DLQ_HEADROOM_BYTES for the dlq-* headers), so an `oversized` message can always be
 * dead-lettered, and keeps them for `dlqRetentionMs`; an existing DLQ topic below either is
 * raised (and logged). Otherwise existing topics are left as they are (a partition count is
 * never changed behind an operator's back). Returns the names that were created.
 */
export async function ensureTopics(kafka: Kafka, options: EnsureTopicsOptions): Promise<string[]> {
  const wanted = options.topics.flatMap((t) => [t, dlqTopicOf(t)]);
  const retentionMs = options.dlqRetentionMs ?? Number(DEFAULTS.BRIDGE_DLQ_RETENTION_DAYS) * DAY_MS;
  const timeoutMs = options.leaderTimeoutMs ?? 30_000;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = wanted.filter((t) => !existing.has(t));
    // Asked of the cluster only when something is to be created: existing topics keep theirs.
    const replication: NewTopicReplication | undefined =
      missing.length === 0
        ? undefined
        : await newTopicReplication(admin, options.replicationFactor);
    const missingSources = options.topics.filter((t) => !existing.has(t));
    // Sources first: a DLQ topic's size limit is derived from its source's effective config.
    if (missingSources.length > 0) {
      await admin.createTopics({
        // KafkaJS's own wait retries only LEADER_NOT_AVAILABLE; right after creation a broker
        // may still answer UNKNOWN_TOPIC_OR_PARTITION, which it throws. We wait ourselves.
        waitForLeaders: false,
        topics: missingSources.map((topic) => ({
          topic,
          numPartitions: options.partitions,
          replicationFactor: replication!.replicationFactor,
          configEntries: replication!.configEntries,
        })),
      });
    }
    const existingDlqs = options.topics.map(dlqTopicOf).filter((t) => existing.has(t));
    const configs = await describeTopicConfigs(
      admin,
      [...options.topics, ...existingDlqs],
      timeoutMs,
    );
    const dlqReplication =
      options.dlqReplicationFactor === undefined
        ? replication
        : await newTopicReplication(admin, options.dlqReplicationFactor);
    await createDlqTopics(
      admin,
      options.topics.filter((t) => !existing.has(dlqTopicOf(t))),
      {
        retentionMs,
        replication: dlqReplication!,
        timeoutMs,
        configs,
        // The sources made just now have the partitions asked for; others are read.
        partitions: new Map(missingSources.map((t) => [t, options.partitions])),
      },
    );
    for (const source of options.topics.filter((t) => existing.has(dlqTopicOf(t)))) {
      const wantedConfig = dlqConfigOf(configs, source, retentionMs);
      await raiseDlqConfig(admin, dlqTopicOf(source), configs, wantedConfig, options.log);
    }

    // Every wanted topic, not only the new ones: after a broker restart an existing topic
    // can also be leaderless for a moment, and the caller is about to produce or consume.
    await waitForLeaders(admin, wanted, timeoutMs);
    return missing;
  } finally {
    await admin.disconnect();
  }
}
