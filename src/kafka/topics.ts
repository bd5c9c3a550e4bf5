import { ConfigResourceTypes, ConfigSource, type Admin, type Kafka } from 'kafkajs';
import { DEFAULTS } from '../config';
import { dlqTopicOf } from '../events/dlq-topic';
import type { Logger } from '../logger';
import { waitFor } from '../util/wait';

/** Milliseconds in a day, for retention settings given in days. */
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Room a DLQ record needs beyond its source message: the dlq-* headers (a 2,000-character
 * error, the dropped header names, coordinates). The DLQ copy never has more original headers
 * than the source message had, so the source's limit plus this is always enough.
 */
export const DLQ_HEADROOM_BYTES = 64 * 1024;

const MAX_MESSAGE_BYTES = 'max.message.bytes';
const RETENTION_MS = 'retention.ms';
const MIN_INSYNC_REPLICAS = 'min.insync.replicas';
const DEFAULT_REPLICATION_FACTOR = 'default.replication.factor';

/** How many copies of each partition a topic keeps, and how many must confirm a write. */
export interface Replication {
  replicationFactor: number;
  /** With acks=all a write fails (NOT_ENOUGH_REPLICAS) while fewer replicas are in sync. */
  minInsyncReplicas: number;
}

/**
 * The replication the cluster gives a topic created without one: its brokers'
 * `default.replication.factor` and `min.insync.replicas`, as Kafka's own CreateTopics does
 * for replication factor -1 (which KafkaJS's CreateTopics version cannot send). So the
 * operator's cluster decides (the local stack's three brokers say 3 and 2, its single broker
 * 1 and 1), and a broker that is down while topics are created makes the creation fail by
 * name instead of quietly creating fewer copies.
 */
export async function clusterReplication(admin: Admin): Promise<Replication> {
  const { brokers } = await admin.describeCluster();
  const broker = brokers[0];
  if (!broker) throw new Error('the Kafka cluster reports no brokers');
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [
      {
        type: ConfigResourceTypes.BROKER,
        name: String(broker.nodeId),
        configNames: [DEFAULT_REPLICATION_FACTOR, MIN_INSYNC_REPLICAS],
      },
    ],
  });
  const entries = new Map(
    (resources[0]?.configEntries ?? []).map((e) => [e.configName, Number(e.configValue)]),
  );
  const positive = (name: string): number => {
    const n = entries.get(name);
    if (n === undefined || !Number.isInteger(n) || n < 1)
      throw new Error(`broker ${broker.nodeId} reports no usable ${name}`);
    return n;
  };
  return {
    replicationFactor: positive(DEFAULT_REPLICATION_FACTOR),
    minInsyncReplicas: positive(MIN_INSYNC_REPLICAS),
  };
}

export interface EnsureTopicsOptions {
  /** Source topics; each gets its DLQ topic `<topic>.dlq` too. */
  topics: string[];
  /** Partition count for topics that do not exist yet. */
  partitions: number;
  /**
   * Replication factor of topics that do not exist yet; they get `min.insync.replicas` 2 with
   * 3 copies or more, else 1. Default: the cluster's (clusterReplication), whose
   * `min.insync.replicas` the new topics then pin, so a later change of the brokers' defaults
   * does not weaken them. Example: `{ replicationFactor: 1 }` for scratch topics.
   */
  replicationFactor?: number;
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

/** The wanted config of one DLQ topic. */
interface DlqTopicConfig {
  maxMessageBytes: number;
  retentionMs: number;
}

type Configs = Map<string, Map<string, { value: string; source: ConfigSource }>>;

/** Every config entry of the topics, by topic and name; retried while a new topic settles. */
async function describeTopicConfigs(
  admin: Admin,
  topics: string[],
  timeoutMs: number,
): Promise<Configs> {
  const out: Configs = new Map();
  if (topics.length === 0) return out;
  await waitFor(
    async () => {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: topics.map((name) => ({ type: ConfigResourceTypes.TOPIC, name })),
      });
      for (const r of resources) {
        if (r.errorCode !== 0)
          throw new Error(`${r.resourceName}: ${r.errorMessage || `error code ${r.errorCode}`}`);
        out.set(
          r.resourceName,
          new Map(
            r.configEntries.map((e) => [
              e.configName,
              { value: e.configValue, source: e.configSource },
            ]),
          ),
        );
      }
      return true;
    },
    { timeoutMs, intervalMs: 100, what: `the configs of ${topics.join(', ')}` },
  );
  return out;
}

function numberOf(configs: Configs, topic: string, name: string): number | undefined {
  const text = configs.get(topic)?.get(name)?.value;
  const n = Number(text);
  return text === undefined || text === '' || !Number.isFinite(n) ? undefined : n;
}

/**
 * Raises an existing DLQ topic's max.message.bytes and retention.ms where they are below what
 * it needs. Kafka's (non-incremental) AlterConfigs replaces a topic's whole override set, so
 * the overrides the topic already has are sent along unchanged.
 */
async function raiseDlqConfig(
  admin: Admin,
  topic: string,
  configs: Configs,
  wanted: DlqTopicConfig,
  log: EnsureTopicsOptions['log'],
): Promise<void> {
  const maxBytes = numberOf(configs, topic, MAX_MESSAGE_BYTES);
  const retention = numberOf(configs, topic, RETENTION_MS);
  const changes: Record<string, string> = {};
  if (maxBytes === undefined || maxBytes < wanted.maxMessageBytes)
    changes[MAX_MESSAGE_BYTES] = String(wanted.maxMessageBytes);
  // -1 is "forever", already long enough.
  if (retention === undefined || (retention !== -1 && retention < wanted.retentionMs))
    changes[RETENTION_MS] = String(wanted.retentionMs);
  if (Object.keys(changes).length === 0) return;

  const overrides = new Map<string, string>();
  for (const [name, entry] of configs.get(topic) ?? []) {
    if (entry.source === ConfigSource.TOPIC_CONFIG) overrides.set(name, entry.value);
  }
  for (const [name, value] of Object.entries(changes)) overrides.set(name, value);
  await admin.alterConfigs({
    validateOnly: false,
    resources: [
      {
        type: ConfigResourceTypes.TOPIC,
        name: topic,
        configEntries: [...overrides].map(([name, value]) => ({ name, value })),
      },
    ],
  });
  log?.info(
    {
      topic,
      before: { [MAX_MESSAGE_BYTES]: maxBytes, [RETENTION_MS]: retention },
      after: changes,
    },
    'raised the DLQ topic config so every dead letter fits and stays long enough',
  );
}

/**
 * Creates the source topics and their DLQ topics when missing. A DLQ topic accepts messages
 * at least as large as its source topic does (plus DLQ_HEADROOM_BYTES for the dlq-* headers),
 * so an `oversized` message can always be dead-lettered, and keeps them for `dlqRetentionMs`;
 * an existing DLQ topic below either is raised (and logged). Otherwise existing topics are
 * left as they are (a partition count is never changed behind an operator's back). Returns
 * the names that were created.
 */
export async function ensureTopics(kafka: Kafka, options: EnsureTopicsOptions): Promise<string[]> {
  const wanted = options.topics.flatMap((t) => [t, dlqTopicOf(t)]);
  const retentionMs = options.dlqRetentionMs ?? Number(DEFAULTS.BRIDGE_DLQ_RETENTION_DAYS) * DAY_MS;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = wanted.filter((t) => !existing.has(t));
    // Asked of the cluster only when something is to be created: existing topics keep theirs.
    const explicit = options.replicationFactor;
    const replication: Replication | undefined =
      missing.length === 0
        ? undefined
        : explicit !== undefined
          ? { replicationFactor: explicit, minInsyncReplicas: explicit >= 3 ? 2 : 1 }
          : await clusterReplication(admin);
    const replicationFactor = replication?.replicationFactor ?? 1;
    // Pinned where it differs from Kafka's default of 1, so single-broker topics keep no
    // override they never had; and always with an explicit factor, so a topic of fewer copies
    // than the brokers' default min.insync.replicas stays writable.
    const replicationConfig =
      replication && (replication.minInsyncReplicas > 1 || explicit !== undefined)
        ? [{ name: MIN_INSYNC_REPLICAS, value: String(replication.minInsyncReplicas) }]
        : [];
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
          replicationFactor,
          configEntries: replicationConfig,
        })),
      });
    }
    const existingDlqs = options.topics.map(dlqTopicOf).filter((t) => existing.has(t));
    const configs = await describeTopicConfigs(
      admin,
      [...options.topics, ...existingDlqs],
      options.leaderTimeoutMs ?? 30_000,
    );
    const dlqConfig = (source: string): DlqTopicConfig => {
      const sourceMax = numberOf(configs, source, MAX_MESSAGE_BYTES);
      if (sourceMax === undefined)
        throw new Error(`topic ${source} reports no ${MAX_MESSAGE_BYTES}; cannot size its DLQ`);
      return { maxMessageBytes: sourceMax + DLQ_HEADROOM_BYTES, retentionMs };
    };

    const missingDlqs = options.topics.filter((t) => !existing.has(dlqTopicOf(t)));
    if (missingDlqs.length > 0) {
      await admin.createTopics({
        waitForLeaders: false,
        topics: missingDlqs.map((source) => {
          const c = dlqConfig(source);
          return {
            topic: dlqTopicOf(source),
            numPartitions: options.partitions,
            replicationFactor,
            configEntries: [
              { name: MAX_MESSAGE_BYTES, value: String(c.maxMessageBytes) },
              { name: RETENTION_MS, value: String(c.retentionMs) },
              ...replicationConfig,
            ],
          };
        }),
      });
    }
    for (const source of options.topics.filter((t) => existing.has(dlqTopicOf(t)))) {
      await raiseDlqConfig(admin, dlqTopicOf(source), configs, dlqConfig(source), options.log);
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
