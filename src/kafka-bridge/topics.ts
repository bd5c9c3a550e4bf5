import type { Kafka } from 'kafkajs';
import { dlqTopicOf } from '../config';
import { waitFor } from '../stack/wait';

export interface EnsureTopicsOptions {
  /** Source topics; each gets its DLQ topic `<topic>.dlq` too. */
  topics: string[];
  /** Partition count for topics that do not exist yet. */
  partitions: number;
  /** Replication factor; 1 for the single local broker. Default: 1. */
  replicationFactor?: number;
  /** How long to wait until every partition of the topics has a leader. Default: 30 s. */
  leaderTimeoutMs?: number;
}

/**
 * Creates the source topics and their DLQ topics when missing. Existing topics are left as
 * they are (a partition count is never changed behind an operator's back). Returns the names
 * that were created.
 */
export async function ensureTopics(kafka: Kafka, options: EnsureTopicsOptions): Promise<string[]> {
  const wanted = options.topics.flatMap((t) => [t, dlqTopicOf(t)]);
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = wanted.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      await admin.createTopics({
        // KafkaJS's own wait retries only LEADER_NOT_AVAILABLE; right after creation a broker
        // may still answer UNKNOWN_TOPIC_OR_PARTITION, which it throws. We wait ourselves.
        waitForLeaders: false,
        topics: missing.map((topic) => ({
          topic,
          numPartitions: options.partitions,
          replicationFactor: options.replicationFactor ?? 1,
        })),
      });
    }
    // Every wanted topic, not only the new ones: after a broker restart an existing topic
    // can also be leaderless for a moment, and the caller is about to produce or consume.
    await waitFor(
      async () => {
        const { topics } = await admin.fetchTopicMetadata({ topics: wanted });
        return topics.every(
          (t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0),
        );
      },
      {
        timeoutMs: options.leaderTimeoutMs ?? 30_000,
        intervalMs: 100,
        what: `leaders for every partition of ${wanted.join(', ')}`,
      },
    );
    return missing;
  } finally {
    await admin.disconnect();
  }
}
