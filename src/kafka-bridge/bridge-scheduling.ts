// The bridge's scheduler as the bridge runs it (its caps, weights, window and commits from
// the settings, admission fed by visibility), and the dependencies every start step shares.
import { CompressionTypes, type Producer } from 'kafkajs';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { LedgerStore } from '../db/ledger-store';
import type { BackoffOptions } from './backoff';
import { watchClosedRuns } from './closed-runs';
import { encodeCommitMetadata } from './commit-metadata';
import type { FaultContext } from './fault-advice';
import type { BridgeMetrics } from './metrics';
import { OpenRuns } from './open-runs';
import type { PartitionFlow } from './partition-flow';
import { StartScheduler } from './start-scheduler';
import type { StepDeps } from './step-context';
import { startOrDeduplicate } from './workflow-starter';

/** What the bridge's scheduler is made from. */
export interface BridgeSchedulerOptions {
  config: Config;
  client: Client;
  taskQueue: string;
  flow: PartitionFlow;
  metrics: BridgeMetrics;
  log: Logger;
  /** Commits `offset` (with `metadata`) for the partition, while it is ours. */
  commit: (
    topic: string,
    partition: number,
    offset: string,
    metadata: string | null,
  ) => Promise<void>;
}

/**
 * The scheduler with BRIDGE_START_CONCURRENCY, the window's limits, TENANT_WEIGHTS and the
 * open-run caps; when a cap is set, the closes are read from visibility (closed-runs.ts).
 */
export function createBridgeScheduler(options: BridgeSchedulerOptions) {
  const { config, metrics, log } = options;
  const openRuns = new OpenRuns(config.bridge.openRuns, config.bridge.openRunHorizonMs);
  const scheduler = new StartScheduler({
    concurrency: config.bridge.startConcurrency,
    limits: config.bridge.window,
    weightOf: (tenant) => config.fairness.tenantWeights[tenant] ?? 1,
    ...(openRuns.uncapped ? {} : { openRuns }),
    flow: options.flow,
    pauses: metrics.pauses,
    metadataOf: encodeCommitMetadata,
    commit: (run, offset, metadata) =>
      options.commit(run.topic, run.partition, offset.toString(), metadata),
    log,
  });
  const closes = openRuns.uncapped
    ? undefined
    : watchClosedRuns({
        client: options.client,
        taskQueue: options.taskQueue,
        openRuns,
        pollMs: config.bridge.openRunsPollMs,
        onClosed: () => scheduler.wake(),
        log,
      });
  metrics.scheduler.view = {
    windows: () =>
      scheduler.allRuns().map((run) => ({
        topic: run.topic,
        partition: run.partition,
        records: run.window.records,
        bytes: run.window.bytes,
      })),
    openRuns: () => ({ total: openRuns.total, background: openRuns.backgroundRuns }),
  };
  return { scheduler, openRuns, closes };
}

/** What every start step of the bridge talks to. */
export interface StepDepsOptions {
  client: Client;
  taskQueue: string;
  traceUrl?: string;
  backfill: boolean;
  producer: Producer;
  ledger: LedgerStore;
  metrics: BridgeMetrics;
  log: Logger;
  backoff?: BackoffOptions;
  maxAttempts?: number;
  faultContext: FaultContext;
}

export function createStepDeps(options: StepDepsOptions): StepDeps {
  const { client, taskQueue, producer } = options;
  return {
    ledger: options.ledger,
    start: (cmd, source, signal) =>
      client.withAbortSignal(signal, () =>
        startOrDeduplicate(client, taskQueue, cmd, source, {
          traceUrl: options.traceUrl,
          backfill: options.backfill,
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
    metrics: options.metrics,
    log: options.log,
    backoff: options.backoff,
    maxAttempts: options.maxAttempts,
    faultContext: options.faultContext,
    now: () => new Date(),
  };
}
