import { ConfigResourceTypes, ConfigSource, type Admin, type Kafka } from 'kafkajs';
import { dlqTopicOf } from '../events/dlq-topic';
import type { Logger } from '../logger';
import {
  describeTopicConfigs,
  MAX_MESSAGE_BYTES,
  newTopicReplication,
  numberOf,
  partitionCounts,
  RETENTION_MS,
  waitForLeaders,
  type Configs,
  type NewTopicReplication,
} from './topic-configs';

/**
 * Room a DLQ record needs beyond its source message: the dlq-* headers (a 2,000-character
 * error, the dropped header names, coordinates). The DLQ copy never has more original headers
 * than the source message had, so the source's limit plus this is always enough.
 */
export const DLQ_HEADROOM_BYTES = 64 * 1024;

/** Milliseconds in a day, for retention settings given in days. */
export const DAY_MS = 24 * 60 * 60 * 1000;

/** What a DLQ topic needs: room for its source's largest message, and a long retention. */
export interface DlqTopicConfig {
  maxMessageBytes: number;
  retentionMs: number;
}

/** The DLQ config of `source`, from its effective config. */
export function dlqConfigOf(configs: Configs, source: string, retentionMs: number): DlqTopicConfig {
  const sourceMax = numberOf(configs, source, MAX_MESSAGE_BYTES);
  if (sourceMax === undefined)
    throw new Error(`topic ${source} reports no ${MAX_MESSAGE_BYTES}; cannot size its DLQ`);
  return { maxMessageBytes: sourceMax + DLQ_HEADROOM_BYTES, retentionMs };
}

/**
 * Creates the DLQ topic of each of `sources` (which exist; their DLQs do not): as many
 * partitions as its source (the DLQ keeps the source key, so one aggregate's poison stays in
 * one partition), room for the source's largest message, `retentionMs`, the given
 * replication. `partitions` and `configs` may already hold the sources' (setup just made
 * them); what they lack is read from the cluster.
 */
export async function createDlqTopics(
  admin: Admin,
  sources: string[],
  options: {
    retentionMs: number;
    replication: NewTopicReplication;
    timeoutMs: number;
    partitions?: ReadonlyMap<string, number>;
    configs?: Configs;
  },
): Promise<void> {
  if (sources.length === 0) return;
  const known = options.partitions ?? new Map<string, number>();
  const counts = await partitionCounts(
    admin,
    sources.filter((s) => !known.has(s)),
    options.timeoutMs,
  );
  const configs =
    options.configs ?? (await describeTopicConfigs(admin, sources, options.timeoutMs));
  await admin.createTopics({
    // KafkaJS's own wait retries only LEADER_NOT_AVAILABLE; right after creation a broker
    // may still answer UNKNOWN_TOPIC_OR_PARTITION, which it throws. Callers wait themselves.
    waitForLeaders: false,
    topics: sources.map((source) => {
      const c = dlqConfigOf(configs, source, options.retentionMs);
      return {
        topic: dlqTopicOf(source),
        numPartitions: known.get(source) ?? counts.get(source)!,
        replicationFactor: options.replication.replicationFactor,
        configEntries: [
          { name: MAX_MESSAGE_BYTES, value: String(c.maxMessageBytes) },
          { name: RETENTION_MS, value: String(c.retentionMs) },
          ...options.replication.configEntries,
        ],
      };
    }),
  });
}

/**
 * Raises an existing DLQ topic's max.message.bytes and retention.ms where they are below what
 * it needs. Kafka's (non-incremental) AlterConfigs replaces a topic's whole override set, so
 * the overrides the topic already has are sent along unchanged.
 */
export async function raiseDlqConfig(
  admin: Admin,
  topic: string,
  configs: Configs,
  wanted: DlqTopicConfig,
  log: Pick<Logger, 'info'> | undefined,
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

/** The bridge may not start: a route topic's DLQ topic does not exist (BRIDGE_DLQ_TOPICS=require). */
export class DlqTopicMissingError extends Error {
  override readonly name = 'DlqTopicMissingError';
  constructor(readonly topics: readonly string[]) {
    super(
      `the DLQ topic${topics.length > 1 ? 's' : ''} ${topics.join(', ')} ${topics.length > 1 ? 'do' : 'does'} not exist: ` +
        'create them with `npx onceflow setup` (or `npx onceflow --domains-module FILE setup`), ' +
        'or set BRIDGE_DLQ_TOPICS=create to let the bridge create them at start',
    );
  }
}

/** The bridge may not start: creating a missing DLQ topic failed (an ACL, the cluster). */
export class DlqTopicCreateError extends Error {
  override readonly name = 'DlqTopicCreateError';
  constructor(
    readonly topics: readonly string[],
    cause: unknown,
  ) {
    super(
      `cannot create the missing DLQ topic${topics.length > 1 ? 's' : ''} ${topics.join(', ')}: ` +
        `${cause instanceof Error ? cause.message : String(cause)}. Create them with ` +
        '`npx onceflow setup` as a principal that may, or grant the bridge CREATE on them ' +
        '(and set BRIDGE_DLQ_TOPICS=require to have the bridge only check)',
      { cause },
    );
  }
}

/** Options of prepareDlqTopics (the BRIDGE_DLQ_* settings). */
export interface PrepareDlqTopicsOptions {
  /** `create` the missing DLQ topics, or `require` them (DlqTopicMissingError). */
  mode: 'create' | 'require';
  /** Replication factor of created DLQ topics. Default: the cluster's. */
  replicationFactor?: number;
  retentionMs: number;
  /** How long a new topic may take to settle. Default: 30 s. */
  timeoutMs?: number;
  log?: Pick<Logger, 'info'>;
}

/**
 * What the bridge does at start, so no poison message ever waits for a DLQ topic: the DLQ
 * topic of every source topic that exists is created when missing (`create`; a creation the
 * cluster refuses is DlqTopicCreateError, naming them), or the bridge refuses to start naming
 * the missing ones (`require`). A source topic that does not exist is
 * left to the consumer's own subscription. Returns the DLQ topics created.
 */
export async function prepareDlqTopics(
  kafka: Kafka,
  sources: readonly string[],
  options: PrepareDlqTopicsOptions,
): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const lacking = sources.filter((s) => existing.has(s) && !existing.has(dlqTopicOf(s)));
    if (lacking.length === 0) return [];
    if (options.mode === 'require') throw new DlqTopicMissingError(lacking.map(dlqTopicOf));
    const timeoutMs = options.timeoutMs ?? 30_000;
    const created = lacking.map(dlqTopicOf);
    try {
      await createDlqTopics(admin, lacking, {
        retentionMs: options.retentionMs,
        replication: await newTopicReplication(admin, options.replicationFactor),
        timeoutMs,
      });
    } catch (err) {
      throw new DlqTopicCreateError(created, err);
    }
    await waitForLeaders(admin, created, timeoutMs);
    for (const topic of created)
      options.log?.info({ topic }, 'created the missing DLQ topic (BRIDGE_DLQ_TOPICS=create)');
    return created;
  } finally {
    await admin.disconnect();
  }
}
