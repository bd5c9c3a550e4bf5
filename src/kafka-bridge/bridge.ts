import type { Client } from '@temporalio/client';
import { CompressionTypes, type Consumer, type Kafka } from 'kafkajs';
import type pg from 'pg';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createLedgerStore } from '../db/ledger-store';
import type { BackoffOptions } from './backoff';
import { connectWhileUnavailable } from './connect-kafka';
import { createBridgeConsumer, createDlqProducer } from './bridge-clients';
import type { FaultContext } from './fault-advice';
import { createBridgeMetrics, type BridgeMetrics } from './metrics';
import { DetachedBatches } from './detached-batches';
import { handleBatch } from './partition-batch';
import { LedgerWriteQueue } from './ledger-write-queue';
import { PartitionCommits } from './partition-commits';
import { PartitionOwnership, isMembershipLost } from './partition-ownership';
import { startOrDeduplicate } from './workflow-starter';
import { bridgeGroupOf, seekBackfillStart } from './backfill';
import { checkTopicFramings, routesOfTopic, topicsOf, type RouteTable } from '../events/routes';
import { createRegistryDecoder, type RegistryDecoder } from '../kafka/registry-decoder';
import { createRegistryProbe } from '../kafka/registry-probe';
import { DAY_MS, prepareDlqTopics } from '../kafka/dlq-topics';
import { SCHEMA_REGISTRY_SETTING } from '../events/message-value';
import { SchemaMisses } from './schema-misses';
import { customerKeywordFor } from '../temporal/customer-keyword';

/** Options of startBridge; defaults come from config. */
export interface BridgeOptions {
  config: Config;
  kafka: Kafka;
  client: Client;
  pool: pg.Pool;
  log: Logger;
  routes: RouteTable;
  /** Default: a fresh set (tests read it directly). */
  metrics?: BridgeMetrics;
  /** Ledger schema. Default: public. */
  ledgerSchema?: string;
  /** Topics of the routes that name none (default: config.kafka.topics); routes' own are read besides. */
  topics?: string[];
  /** Default: config.kafka.groupId (its backfill group in BRIDGE_MODE=backfill). */
  groupId?: string;
  /** Default: config.temporal.taskQueue. */
  taskQueue?: string;
  /** Retry pacing while a dependency is down. Default: 200 ms doubling to 10 s. */
  backoff?: BackoffOptions;
  /**
   * Tries of a failure that is not a dependency outage before the message is dead-lettered
   * as `processing-failed`. Default: 3.
   */
  maxAttempts?: number;
  /** Read from the earliest offset when the group has none. Default: true (lose nothing). */
  fromBeginning?: boolean;
  /** Decodes wire-format values. Default: one for config.schemaRegistry, when it names one. */
  registry?: RegistryDecoder;
}

export interface RunningBridge {
  metrics: BridgeMetrics;
  /** The topics it subscribed to. */
  topics: string[];
  consumer: Consumer;
  /** Stops fetching, lets in-flight starts finish, commits what is handled, disconnects. */
  stop(): Promise<void>;
}

/**
 * The role the pool logs in as (never its password), for naming it in a fix: the pool's own
 * user or connection string's, as pg reads them.
 */
function databaseRoleOf(pool: pg.Pool): string | undefined {
  const options = (pool as unknown as { options?: { user?: string; connectionString?: string } })
    .options;
  if (options?.user) return options.user;
  try {
    const user = decodeURIComponent(new URL(options?.connectionString ?? '').username);
    return user || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Kafka → Temporal bridge: consumes the source topics with manual commits and hands each
 * fetched batch to handleBatch. Poison goes to `<topic>.dlq` through an idempotent producer.
 */
export async function startBridge(options: BridgeOptions): Promise<RunningBridge> {
  const { config, kafka, log } = options;
  // The topics of routes that name none; a route's own topics are read besides.
  const general = options.topics ?? config.kafka.topics;
  const topics = topicsOf(options.routes, general);
  // A message is read one way before its event type is known: one framing per topic.
  checkTopicFramings(options.routes, topics, general);
  const registry =
    options.registry ??
    (config.schemaRegistry ? createRegistryDecoder(config.schemaRegistry) : undefined);
  // A schema ID the registry does not know is the message's once the registry has shown it
  // answers, after BRIDGE_SCHEMA_UNKNOWN_AFTER (schema-misses.ts).
  const schemaMisses = registry
    ? new SchemaMisses({
        afterMs: config.bridge.schemaUnknownAfterMs,
        probe: config.schemaRegistry
          ? createRegistryProbe(config.schemaRegistry)
          : () => Promise.reject(new Error(`${SCHEMA_REGISTRY_SETTING} is not set`)),
      })
    : undefined;
  const metrics = options.metrics ?? createBridgeMetrics();
  const ledger = createLedgerStore(options.pool, { schema: options.ledgerSchema });
  // Every partition's ledger rows share INSERTs: how many go in one follows the bridge's
  // whole start rate, so a busy bridge makes few commits in Postgres and few round trips.
  const ledgerQueue = new LedgerWriteQueue(ledger);
  const producer = createDlqProducer(kafka);
  const faultContext: FaultContext = {
    ledgerSchema: ledger.schema,
    databaseRole: databaseRoleOf(options.pool),
    temporalNamespace: options.client.options.namespace,
    ...(registry ? { registryUrl: registry.url } : {}),
  };
  const groupId = options.groupId ?? bridgeGroupOf(config);
  const backfill = config.bridge.mode === 'backfill';
  const consumer = createBridgeConsumer(kafka, {
    groupId,
    sessionTimeoutMs: config.bridge.sessionTimeoutMs,
    metrics,
    log,
    faultContext,
  });
  let stopping = false;
  // A batch that waits on its environment pauses its partition and goes on in the background.
  const detached = new DetachedBatches(consumer, metrics.pauses, log);
  const taskQueue = options.taskQueue ?? config.temporal.taskQueue;
  // Which partitions are ours, per generation: a batch stuck retrying an outage stops at once
  // when a rebalance takes its partition away, and never commits or dead-letters for it.
  const ownership = new PartitionOwnership();
  const commits = new PartitionCommits();
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    commits.reset();
    ownership.assign(payload.memberAssignment);
    metrics.progress.retainOnly((topic, partition) => ownership.owns(topic, partition));
    log.info({ assignment: payload.memberAssignment }, 'partitions assigned');
  });
  consumer.on(consumer.events.REBALANCING, () => ownership.revokeAll());
  consumer.on(consumer.events.CRASH, () => ownership.revokeAll());
  const noticeLoss = (err: unknown) => {
    if (isMembershipLost(err)) {
      ownership.revokeAll();
      log.warn({ err: (err as Error).message }, 'group membership lost; leaving its partitions');
    }
    throw err;
  };

  // A fetch of nothing but transaction markers and aborted records never reaches eachBatch:
  // KafkaJS passes over it in memory (and, with autoCommit off, commits nothing). Its fetch
  // started at our handled prefix, so everything before its last record is handled: commit
  // past it, or an idle partition ending with a marker stays one short of its end for good.
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    const { topic, partition, batchSize, firstOffset, lastOffset } = payload;
    if (batchSize !== 0 || firstOffset === null || stopping) return;
    if (!ownership.owns(topic, partition)) return;
    const next = (BigInt(lastOffset) + 1n).toString();
    commits
      .commit(topic, partition, next, () =>
        consumer.commitOffsets([{ topic, partition, offset: next }]),
      )
      .then((sent) => {
        if (sent) metrics.progress.noteCommitted(topic, partition, next);
      })
      .catch((err: unknown) =>
        log.warn(
          { topic, partition, offset: next, err: (err as Error).message },
          'commit past transaction markers failed; the next batch, or a restart, commits past them',
        ),
      );
  });

  // Kafka down at start (a cluster restarting) is waited out like any outage, not fatal.
  const connectOptions = {
    warn: (fields: object, message: string) => log.warn(fields, message),
    stopped: () => stopping,
  };
  await connectWhileUnavailable(() => producer.connect(), { ...connectOptions, what: 'producer' });
  // Every route topic's DLQ topic exists before a poison message needs it (BRIDGE_DLQ_TOPICS):
  // created now, or the bridge does not start (Kafka answers: the producer just connected).
  try {
    await prepareDlqTopics(kafka, topics, {
      mode: config.bridge.dlqTopics,
      replicationFactor: config.bridge.dlqReplicationFactor,
      retentionMs: config.bridge.dlqRetentionDays * DAY_MS,
      log,
    });
  } catch (err) {
    await producer.disconnect();
    throw err;
  }
  if (backfill && config.bridge.backfillFromMs !== undefined) {
    const admin = kafka.admin();
    await connectWhileUnavailable(() => admin.connect(), { ...connectOptions, what: 'admin' });
    try {
      const set = await seekBackfillStart(admin, groupId, topics, config.bridge.backfillFromMs);
      if (set.length > 0)
        log.info(
          { groupId, topics: set, from: new Date(config.bridge.backfillFromMs).toISOString() },
          'backfill starts at BRIDGE_BACKFILL_FROM',
        );
    } finally {
      await admin.disconnect();
    }
  }
  await connectWhileUnavailable(() => consumer.connect(), { ...connectOptions, what: 'consumer' });
  for (const topic of topics) {
    await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
  }
  // Each topic's routes, computed once: a route may name the topics it is read from.
  const topicRoutes = new Map<string, RouteTable>();
  const routesFor = (topic: string) => {
    let table = topicRoutes.get(topic);
    if (!table) topicRoutes.set(topic, (table = routesOfTopic(options.routes, topic, general)));
    return table;
  };
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: config.bridge.partitionsConcurrency,
    eachBatch: async ({ batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning }) => {
      if (stopping) {
        // Batches still running detached finish before the consumer disconnects; fetching
        // this partition again meanwhile would only spin.
        consumer.pause([{ topic: batch.topic, partitions: [batch.partition] }]);
        return;
      }
      const lease = ownership.lease(batch.topic, batch.partition);
      await detached.run(batch.topic, batch.partition, (onWait) =>
        handleBatch(
          batch,
          {
            routes: routesFor(batch.topic),
            translateOptions: {
              maxBytes: config.bridge.maxMessageBytes,
              customerKeyword: customerKeywordFor(config), // issue 17: CustomerId is stored unencrypted
            },
            ...(registry ? { registry, schemaMisses } : {}),
            ledger,
            ledgerQueue,
            start: (cmd, source, signal) =>
              options.client.withAbortSignal(signal, () =>
                startOrDeduplicate(options.client, taskQueue, cmd, source, {
                  traceUrl: config.tracing.traceUrl,
                  backfill,
                }),
              ),
            sendToDlq: async (record) => {
              await producer.send({
                topic: record.topic,
                acks: -1,
                // gzip: readable by every Kafka client, stock KafkaJS included.
                compression: CompressionTypes.GZIP,
                messages: [record.message],
              });
            },
            metrics,
            log,
            concurrency: config.bridge.startConcurrency,
            backoff: options.backoff,
            maxAttempts: options.maxAttempts,
            faultContext,
            now: () => new Date(),
          },
          {
            shouldContinue: () => !stopping && isRunning() && lease.valid(),
            ownsPartition: () => lease.valid(),
            heartbeat: () => heartbeat().catch(noticeLoss),
            onWait,
            // Only while the partition is ours: a detached batch may outlive its generation,
            // and KafkaJS's offsets then belong to the next one.
            resolveOffset: (offset) => {
              if (lease.valid()) resolveOffset(offset);
            },
            commit: async (offset) => {
              await commits.commit(batch.topic, batch.partition, offset, () =>
                commitOffsetsIfNecessary({
                  topics: [
                    { topic: batch.topic, partitions: [{ partition: batch.partition, offset }] },
                  ],
                }).catch(noticeLoss),
              );
            },
          },
        ),
      );
    },
  });

  return {
    metrics,
    topics,
    consumer,
    async stop() {
      stopping = true;
      try {
        // The batches running detached and then the running eachBatch calls stop taking new
        // messages, finish the starts in flight and commit the handled prefix.
        await detached.drain();
        await consumer.disconnect();
      } finally {
        await producer.disconnect();
      }
    },
  };
}
