import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config';
import { createActivities, type ActivityDeps } from '../activities';
import { dataConverterFor } from '../temporal/data-converter';
import { prepareWorkflowBundle } from './workflow-bundle';
import { activeTracing } from '../tracing/active';
import { workerTracingOptions } from '../tracing/worker';

export interface CreateWorkerOptions {
  connection: NativeConnection;
  config: Config;
  deps: ActivityDeps;
  /** Overrides the configured task queue (tests use one queue each). */
  taskQueue?: string;
  /**
   * A prebuilt workflow bundle (tests bundle once; with tracing on, one built with
   * `tracing: true`); default: src/workflows bundled by a child process and cached (see
   * prepareWorkflowBundle).
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

/** The onceflow worker: every workflow in src/workflows and every activity, on one task queue. */
export async function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  const { config } = options;
  return Worker.create({
    connection: options.connection,
    namespace: config.temporal.namespace,
    // Same converter as every client: histories hold only ciphertext (issue 17).
    dataConverter: dataConverterFor(config),
    taskQueue: options.taskQueue ?? config.temporal.taskQueue,
    // With tracing on, the bundle carries the SDK's workflow interceptors (a bundle of its own).
    workflowBundle:
      options.workflowBundle ?? (await prepareWorkflowBundle({ tracing: !!activeTracing() })),
    ...workerTracingOptions(),
    // Provider URL from config unless the caller injected its own (tests run their own sandbox);
    // the transient retry window from config unless the injected providers name one.
    activities: createActivities({
      ...options.deps,
      providers: {
        url: config.providers.url,
        transientRetryWindowMs: config.orders.transientRetryWindowMs,
        ...options.deps.providers,
      },
    }),
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTasks,
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
  });
}
