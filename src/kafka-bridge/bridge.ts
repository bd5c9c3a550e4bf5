import type { Client } from '@temporalio/client';
import { Partitioners, type Consumer, type Kafka, type Producer } from 'kafkajs';
import type pg from 'pg';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { createLedgerStore } from '../db/ledger-store';
import type { BackoffOptions } from './backoff';
import { createBridgeMetrics, type BridgeMetrics } from './metrics';
import { handleBatch } from './partition-batch';
import type { RouteTable } from './routes';
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
  /** Default: config.kafka.topics. */
  topics?: string[];
  /** Default: config.kafka.groupId. */
  groupId?: string;
  /** Default: config.temporal.taskQueue. */
  taskQueue?: string;
  /** Retry pacing while a dependency is down. Default: 200 ms doubling to 10 s. */
  backoff?: BackoffOptions;
  /** Read from the earliest offset when the group has none. Default: true (lose nothing). */
  fromBeginning?: boolean;
}

export interface RunningBridge {
  metrics: BridgeMetrics;
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
  const metrics = options.metrics ?? createBridgeMetrics();
  const ledger = createLedgerStore(options.pool, { schema: options.ledgerSchema });
  // Idempotent producer: a retried DLQ write after a lost ack is not written twice.
  // The DLQ keeps the source key, so the default (murmur2, Java-compatible) partitioner puts one
  // order's poison in one DLQ partition.
  const producer: Producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  const consumer = kafka.consumer({
    groupId: options.groupId ?? config.kafka.groupId,
    sessionTimeout: config.bridge.sessionTimeoutMs,
    // Several heartbeats fit in one session, so one late heartbeat does not cost the partitions.
    heartbeatInterval: Math.min(3_000, Math.floor(config.bridge.sessionTimeoutMs / 10)),
    // One partition's batch is at most this much; bounds memory and time per commit.
    maxBytesPerPartition: 1024 * 1024,
    // KafkaJS restarts the consumer only after retriable errors by default; a broker that is
    // down longer than its retries would leave the bridge idle. Always restart: offsets are
    // only committed for handled messages, so a restart loses and repeats nothing harmful.
    retry: {
      restartOnFailure: async (err) => {
        log.warn({ err: err.message }, 'consumer failed; restarting');
        return true;
      },
    },
  });
  let stopping = false;

  await producer.connect();
  await consumer.connect();
  for (const topic of options.topics ?? config.kafka.topics) {
    await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
  }
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: config.bridge.partitionsConcurrency,
    eachBatch: async ({
      batch,
      resolveOffset,
      heartbeat,
      commitOffsetsIfNecessary,
      isRunning,
      isStale,
    }) => {
      await handleBatch(
        batch,
        {
          routes: options.routes,
          translateOptions: {
            maxBytes: config.bridge.maxMessageBytes,
            customerKeyword: customerKeywordFor(config), // issue 17: CustomerId is stored unencrypted
          },
          ledger,
          client: options.client,
          taskQueue: options.taskQueue ?? config.temporal.taskQueue,
          sendToDlq: async (record) => {
            await producer.send({ topic: record.topic, acks: -1, messages: [record.message] });
          },
          metrics,
          log,
          concurrency: config.bridge.startConcurrency,
          backoff: options.backoff,
          now: () => new Date(),
        },
        {
          shouldContinue: () => !stopping && isRunning() && !isStale(),
          heartbeat,
          resolveOffset,
          commit: (offset) =>
            commitOffsetsIfNecessary({
              topics: [
                { topic: batch.topic, partitions: [{ partition: batch.partition, offset }] },
              ],
            }),
        },
      );
    },
  });

  return {
    metrics,
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
