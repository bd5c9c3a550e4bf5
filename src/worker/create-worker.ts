import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config';
import type { ActivityDeps } from '../activities';
import { createEventProducer } from '../activities/kafka';
import type { Domain } from '../engine/define-domain';
import { activitiesOfDomains, checkWorkflowExports } from '../engine/registry';
import { dataConverterFor } from '../temporal/data-converter';
import { prepareWorkflowBundle } from './workflow-bundle';
import { activeTracing } from '../tracing/active';
import { workerTracingOptions } from '../tracing/worker';

export interface CreateWorkerOptions {
  connection: NativeConnection;
  config: Config;
  /**
   * The domains it runs: every one's workflows bundled, every one's activities registered.
   * @example domains: [orders, giftCards]
   */
  domains: readonly Domain[];
  /**
   * What activities are built from. `providers` defaults to PROVIDERS_URL and the configured
   * transient window; `config` to the worker's.
   * @example deps: { pool }
   */
  deps: ActivityDeps;
  /**
   * Overrides the configured task queue (TEMPORAL_TASK_QUEUE; tests use one queue each).
   * @example taskQueue: 'gift-cards'
   */
  taskQueue?: string;
  /**
   * A prebuilt workflow bundle (tests bundle once; with tracing on, one with the tracing
   * interceptors: test/support/workflow-bundle.ts). Default: the engine's and the domains'
   * workflows bundled by a child process and cached (see prepareWorkflowBundle).
   * @example workflowBundle: { codePath: '/var/cache/onceflow/workflows.js' }
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

/**
 * A onceflow worker: every registered domain's workflows and activities, and the engine's own,
 * on one task queue. Checks at once that each route's workflow is exported by its domain and
 * that no two domains export one workflow type.
 *
 * @example
 * const worker = await createWorker({ connection, config, domains: [giftCards], deps: { pool } });
 * await worker.run();
 */
export async function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  const { config, domains } = options;
  checkWorkflowExports(domains);
  // Publishing steps share one producer, connected at the first publish; made here unless the
  // caller brings its own, and then closed when the worker stops.
  const ownProducer = options.deps.producer ? undefined : createEventProducer(config.kafka);
  const worker = await Worker.create({
    connection: options.connection,
    namespace: config.temporal.namespace,
    // Same converter as every client: histories hold only ciphertext (issue 17).
    dataConverter: dataConverterFor(config),
    taskQueue: options.taskQueue ?? config.temporal.taskQueue,
    // With tracing on, the bundle carries the SDK's workflow interceptors (a bundle of its own).
    workflowBundle:
      options.workflowBundle ??
      (await prepareWorkflowBundle({ domains, tracing: !!activeTracing() })),
    ...workerTracingOptions(),
    // Provider URL from config unless the caller injected its own (tests run their own sandbox);
    // the transient retry window from config unless the injected providers name one.
    activities: activitiesOfDomains(domains, {
      config,
      ...(ownProducer ? { producer: ownProducer } : {}),
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
  if (ownProducer) {
    const run = worker.run.bind(worker);
    worker.run = () => run().finally(() => ownProducer.close());
  }
  return worker;
}
