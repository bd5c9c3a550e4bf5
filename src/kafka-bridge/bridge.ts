import type { Client } from '@temporalio/client';
import { CompressionTypes, Partitioners, type Consumer, type Kafka, type Producer } from 'kafkajs';
import type pg from 'pg';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createLedgerStore } from '../db/ledger-store';
import type { BackoffOptions } from './backoff';
import { connectWhileUnavailable } from './connect-kafka';
import { classifyError } from './classify-error';
import { OPERATOR_FAULTS } from './error-codes';
import { adviseFault, type FaultContext } from './fault-advice';
import { createBridgeMetrics, type BridgeMetrics } from './metrics';
import { handleBatch } from './partition-batch';
import { LedgerWriteQueue } from './ledger-write-queue';
import { PartitionCommits } from './partition-commits';
import { PartitionOwnership, isMembershipLost } from './partition-ownership';
import { startOrDeduplicate } from './workflow-starter';
import { bridgeGroupOf, seekBackfillStart } from './backfill';
import { checkTopicFramings, routesOfTopic, topicsOf, type RouteTable } from '../events/routes';
import { createRegistryDecoder, type RegistryDecoder } from '../kafka/registry-decoder';
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
  const metrics = options.metrics ?? createBridgeMetrics();
  const ledger = createLedgerStore(options.pool, { schema: options.ledgerSchema });
  // Every partition's ledger rows share INSERTs: how many go in one follows the bridge's
  // whole start rate, so a busy bridge makes few commits in Postgres and few round trips.
  const ledgerQueue = new LedgerWriteQueue(ledger);
  // Idempotent producer: a retried DLQ write after a lost ack is not written twice.
  // The DLQ keeps the source key, so the default (murmur2, Java-compatible) partitioner puts one
  // order's poison in one DLQ partition.
  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
    // A missing DLQ topic is an operator's to create (npm run setup): one the broker created
    // on first write would have the broker's defaults, not the DLQ's retention and size. The
    // write then fails as topic-missing and the partition stalls until it exists.
    allowAutoTopicCreation: false,
  });
  const faultContext: FaultContext = {
    ledgerSchema: ledger.schema,
    databaseRole: databaseRoleOf(options.pool),
    temporalNamespace: options.client.options.namespace,
    ...(registry ? { registryUrl: registry.url } : {}),
  };
  const groupId = options.groupId ?? bridgeGroupOf(config);
  const backfill = config.bridge.mode === 'backfill';
  const consumer = kafka.consumer({
    groupId,
    sessionTimeout: config.bridge.sessionTimeoutMs,
    // Several heartbeats fit in one session, so one late heartbeat does not cost the partitions.
    heartbeatInterval: Math.min(3_000, Math.floor(config.bridge.sessionTimeoutMs / 10)),
    // One partition's batch is at most this much; bounds memory and time per commit.
    maxBytesPerPartition: 1024 * 1024,
    // read_committed (KafkaJS's default, stated because it matters): a record of an aborted
    // transaction must never start anything, and one of an open transaction only once it
    // commits. kafka-fetch-patch.ts makes KafkaJS's filtering exact.
    readUncommitted: false,
    // KafkaJS restarts the consumer only after retriable errors by default; a broker that is
    // down longer than its retries would leave the bridge idle. Always restart: offsets are
    // only committed for handled messages, so a restart loses and repeats nothing harmful.
    retry: {
      restartOnFailure: async (err) => {
        metrics.consumerRestarts.inc();
        const classification = classifyError(err);
        const fault = classification.fault;
        if (classification.kind === 'transient' && fault) {
          // The consumer's own Kafka refuses it (an ACL on the source topic or the group,
          // credentials): the partitions stall while it restarts; say so, and what to fix.
          metrics.transientRetries.inc({ dependency: 'kafka', fault });
          if (OPERATOR_FAULTS.has(fault)) {
            log.error(
              { err: err.message, dependency: 'kafka', fault, code: classification.code },
              adviseFault({ dependency: 'kafka', err, classification, context: faultContext }),
            );
            return true;
          }
        }
        log.warn({ err: err.message }, 'consumer failed; restarting');
        return true;
      },
    },
  });
  let stopping = false;
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
      const lease = ownership.lease(batch.topic, batch.partition);
      await handleBatch(
        batch,
        {
          routes: routesFor(batch.topic),
          translateOptions: {
            maxBytes: config.bridge.maxMessageBytes,
            customerKeyword: customerKeywordFor(config), // issue 17: CustomerId is stored unencrypted
          },
          ...(registry ? { registry } : {}),
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
          resolveOffset,
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
        // Waits for the running eachBatch calls; they stop taking new messages, finish the
        // starts in flight and commit the handled prefix.
        await consumer.disconnect();
      } finally {
        await producer.disconnect();
      }
    },
  };
}
