// What creating onceflow's topics shares (topics.ts for setup, dlq-topics.ts for the DLQ
// topics the bridge checks at start): the cluster's replication, topic configs, leaders.
import { ConfigResourceTypes, type Admin, type ConfigSource } from 'kafkajs';
import { waitFor } from '../util/wait';

export const MAX_MESSAGE_BYTES = 'max.message.bytes';
export const RETENTION_MS = 'retention.ms';
export const MIN_INSYNC_REPLICAS = 'min.insync.replicas';
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

/** The replication of topics to create, and the config entries that pin it on them. */
export interface NewTopicReplication {
  replicationFactor: number;
  configEntries: Array<{ name: string; value: string }>;
}

/**
 * How new topics are replicated: `explicit` copies (with `min.insync.replicas` 2 from 3
 * copies, else 1), or the cluster's (clusterReplication). `min.insync.replicas` is pinned on
 * the topic where it differs from Kafka's default of 1, so single-broker topics keep no
 * override they never had; and always with an explicit factor, so a topic of fewer copies
 * than the brokers' default min.insync.replicas stays writable.
 */
export async function newTopicReplication(
  admin: Admin,
  explicit: number | undefined,
): Promise<NewTopicReplication> {
  const replication: Replication =
    explicit !== undefined
      ? { replicationFactor: explicit, minInsyncReplicas: explicit >= 3 ? 2 : 1 }
      : await clusterReplication(admin);
  return {
    replicationFactor: replication.replicationFactor,
    configEntries:
      replication.minInsyncReplicas > 1 || explicit !== undefined
        ? [{ name: MIN_INSYNC_REPLICAS, value: String(replication.minInsyncReplicas) }]
        : [],
  };
}

/** Every config entry of some topics, by topic and name. */
export type Configs = Map<string, Map<string, { value: string; source: ConfigSource }>>;

/** Every config entry of the topics, by topic and name; retried while a new topic settles. */
export async function describeTopicConfigs(
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

/** A numeric config of a topic, or undefined when it has none. */
export function numberOf(configs: Configs, topic: string, name: string): number | undefined {
  const text = configs.get(topic)?.get(name)?.value;
  const n = Number(text);
  return text === undefined || text === '' || !Number.isFinite(n) ? undefined : n;
}

/** Partitions per topic, as the cluster reports them; retried while a new topic settles. */
export async function partitionCounts(
  admin: Admin,
  topics: string[],
  timeoutMs: number,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (topics.length === 0) return out;
  await waitFor(
    async () => {
      const { topics: found } = await admin.fetchTopicMetadata({ topics });
      for (const t of found) if (t.partitions.length > 0) out.set(t.name, t.partitions.length);
      return topics.every((t) => out.has(t));
    },
    { timeoutMs, intervalMs: 100, what: `the partitions of ${topics.join(', ')}` },
  );
  return out;
}

/** Waits until every partition of `topics` has a leader. */
export async function waitForLeaders(
  admin: Admin,
  topics: string[],
  timeoutMs: number,
): Promise<void> {
  await waitFor(
    async () => {
      const { topics: found } = await admin.fetchTopicMetadata({ topics });
      return found.every(
        (t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0),
      );
    },
    { timeoutMs, intervalMs: 100, what: `leaders for every partition of ${topics.join(', ')}` },
  );
}
