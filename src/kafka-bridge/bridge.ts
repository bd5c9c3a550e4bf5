import type { Client } from '@temporalio/client';
import type { Consumer, Kafka } from 'kafkajs';
import type pg from 'pg';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createLedgerStore } from '../db/ledger-store';
import type { BackoffOptions } from './backoff';
import { connectWhileUnavailable } from './connect-kafka';
import {
  createBridgeConsumer,
  createDlqProducer,
  databaseRoleOf,
  registryOf,
} from './bridge-clients';
import type { FaultContext } from './fault-advice';
import { createBridgeMetrics, type BridgeMetrics } from './metrics';
import { DetachedBatches } from './detached-batches';
import { LedgerWriteQueue } from './ledger-write-queue';
import { PartitionCommits } from './partition-commits';
import { PartitionOwnership, isMembershipLost, type PartitionLease } from './partition-ownership';
import { readableEndOf } from '../kafka/kafka-fetch-patch';
import { bridgeGroupOf, seekBackfillStart } from './backfill';
import { checkTopicFramings, routesOfTopic, topicsOf, type RouteTable } from '../events/routes';
import { PartitionFlow } from './partition-flow';
import { HandledBeyond } from './handled-beyond';
import { followGroup } from './group-events';
import { translateBatch, windowRecordOf } from './batch-intake';
import { createBridgeScheduler, createStepDeps } from './bridge-scheduling';
import type { RegistryDecoder } from '../kafka/registry-decoder';
import { DAY_MS, prepareDlqTopics } from '../kafka/dlq-topics';
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
  const { registry, schemaMisses } = registryOf(config, options.registry);
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
  const taskQueue = options.taskQueue ?? config.temporal.taskQueue;
  // The one place partitions are paused and resumed: a full window, a wait on the environment.
  const flow = new PartitionFlow(consumer);
  // A batch whose intake waits on its environment pauses its partition and goes on in the background.
  const detached = new DetachedBatches(flow.control('environment'), metrics.pauses, log);
  // Which partitions are ours, per generation: a start stuck retrying an outage stops at once
  // when a rebalance takes its partition away, and never commits or dead-letters for it.
  const ownership = new PartitionOwnership();
  const commits = new PartitionCommits();
  const noticeLoss = (err: unknown) => {
    if (isMembershipLost(err)) {
      ownership.revokeAll();
      log.warn({ err: (err as Error).message }, 'group membership lost; leaving its partitions');
    }
    throw err;
  };
  const { scheduler, closes } = createBridgeScheduler({
    config,
    client: options.client,
    taskQueue,
    flow,
    metrics,
    log,
    commit: async (topic, partition, offset, metadata) => {
      const sent = await commits.commit(topic, partition, offset, () =>
        consumer.commitOffsets([{ topic, partition, offset, metadata }]).catch(noticeLoss),
      );
      if (sent) metrics.progress.noteCommitted(topic, partition, offset);
    },
  });
  const admin = kafka.admin();
  const handledBeyond = new HandledBeyond(admin, groupId, topics, log);
  // Step and intake dependencies, the same for every partition.
  let heartbeat: () => Promise<void> = async () => undefined;
  const stepDeps = createStepDeps({
    client: options.client,
    taskQueue,
    traceUrl: config.tracing.traceUrl,
    backfill,
    producer,
    ledger,
    metrics,
    log,
    backoff: options.backoff,
    maxAttempts: options.maxAttempts,
    faultContext,
  });
  /** The partition's run of the lease's generation, skipping what its last reader handled. */
  const runOf = async (topic: string, partition: number, lease: PartitionLease) => {
    const current = scheduler.runOf(topic, partition);
    if (current?.lease.generation === lease.generation) return current;
    const skip = await handledBeyond.skipFor(topic, partition);
    return scheduler.runFor({
      topic,
      partition,
      lease,
      deps: stepDeps,
      controls: {
        shouldContinue: () => !stopping && lease.valid(),
        ownsPartition: () => lease.valid(),
        heartbeat: () => heartbeat().catch(noticeLoss),
      },
      ledgerQueue,
      log: log.child({ topic, partition }),
      skip,
    });
  };

  followGroup({
    consumer,
    ownership,
    commits,
    scheduler,
    handledBeyond,
    progress: metrics.progress,
    log,
    runOf,
    stopping: () => stopping,
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
    await connectWhileUnavailable(() => admin.connect(), { ...connectOptions, what: 'admin' });
  } catch (err) {
    await producer.disconnect();
    throw err;
  }
  if (backfill && config.bridge.backfillFromMs !== undefined) {
    const set = await seekBackfillStart(admin, groupId, topics, config.bridge.backfillFromMs);
    if (set.length > 0)
      log.info(
        { groupId, topics: set, from: new Date(config.bridge.backfillFromMs).toISOString() },
        'backfill starts at BRIDGE_BACKFILL_FROM',
      );
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
  const translateOptions = {
    maxBytes: config.bridge.maxMessageBytes,
    customerKeyword: customerKeywordFor(config), // issue 17: CustomerId is stored unencrypted
  };
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: config.bridge.partitionsConcurrency,
    // eachBatch only takes a batch in (decode, translate, ledger lookup) and returns: the
    // scheduler starts its records, and KafkaJS fetches on while the window has room.
    eachBatch: async ({ batch, resolveOffset, heartbeat: beat }) => {
      const { topic, partition } = batch;
      if (stopping) {
        // Batches still running detached finish before the consumer disconnects; fetching
        // this partition again meanwhile would only spin.
        consumer.pause([{ topic, partitions: [partition] }]);
        return;
      }
      heartbeat = beat;
      // A batch fetched for a partition a rebalance already took away is left for its owner.
      const lease = ownership.lease(topic, partition);
      if (!lease.valid() || batch.messages.length === 0) return;
      metrics.consumed.inc({ topic }, batch.messages.length);
      metrics.progress.noteBatch(topic, partition, batch.messages[0]!.offset, readableEndOf(batch));
      const run = await runOf(topic, partition, lease);
      await detached.run(topic, partition, async (onWait) => {
        const intake = {
          routes: routesFor(topic),
          translateOptions,
          ...(registry ? { registry, schemaMisses } : {}),
        };
        const items = await translateBatch(batch, intake, run.intakeContext(onWait));
        if (items === undefined) return; // stopped while the registry was failing
        const records = items.map((item) => windowRecordOf(item, backfill));
        const fetchedTo = BigInt(batch.lastOffset()) + 1n;
        // The fetch position moves past what the window holds (KafkaJS fetches from the last
        // resolved offset); the committed offset stays at the first record not handled.
        if ((await scheduler.admit(run, records, fetchedTo, onWait)) && lease.valid())
          resolveOffset(batch.messages.at(-1)!.offset);
      });
    },
  });

  return {
    metrics,
    topics,
    consumer,
    async stop() {
      stopping = true;
      try {
        // The starts in flight finish, their rows are written and every partition's handled
        // prefix committed; then batches still taken in detached end, and the consumer goes.
        await scheduler.stop();
        await detached.drain();
        await closes?.stop();
        await consumer.disconnect();
      } finally {
        await admin.disconnect();
        await producer.disconnect();
      }
    },
  };
}
