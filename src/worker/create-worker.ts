import { readFileSync } from 'node:fs';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config';
import type { ActivityDeps } from '../activities';
import { createEventProducer } from '../activities/kafka';
import { buildIdOf } from '../db/workflow-build-store';
import { buildDrains, type BuildDrainsOptions } from './build-drains';
import { ResultSizeInterceptor } from './result-size';
import { DatabaseOutageInterceptor } from './database-outage';
import type { Domain } from '../engine/define-domain';
import { activitiesOfDomains, checkWorkflowExports, declaredProviders } from '../engine/registry';
import { providerTaskQueue } from '../util/provider-queue';
import { applyTaskQueueConfig } from './task-queue-config';
import { dataConverterFor } from '../temporal/data-converter';
import { prepareWorkflowBundle } from './workflow-bundle';
import { workerTracingOptions } from '../tracing/worker';
import { fairnessOptionsOf } from './fairness-options';
import { providerPaceInterceptor } from '../activities/provider-pace';

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
   * A prebuilt workflow bundle (tests bundle once, with the worker's own bundle options:
   * test/support/workflow-bundle.ts). Default: the engine's and the domains' workflows
   * bundled by a child process and cached (see prepareWorkflowBundle).
   * @example workflowBundle: { codePath: '/var/cache/onceflow/workflows.js' }
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Where the deployment's build lines go (this build current, an older one drained, a build
   * nobody can run). Default: nowhere; runWorker passes its logger.
   * @example log: createLogger('worker', 'info')
   */
  log?: BuildDrainsOptions['log'];
  /**
   * Each refresh of the deployment's builds (runWorker's metric). Default: none.
   * @example onBuildReport: (builds) => console.table(builds)
   */
  onBuildReport?: BuildDrainsOptions['onReport'];
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
  const taskQueue = options.taskQueue ?? config.temporal.taskQueue;
  const log = options.log ?? silentLog;
  // Without a logger, a bundle folder someone else holds is a process warning.
  const warn = options.log && ((m: string) => log.warn({}, m));
  const bundle =
    options.workflowBundle ?? (await prepareWorkflowBundle({ domains, ...(warn ? { warn } : {}) }));
  const tracing = workerTracingOptions();
  const outage = new DatabaseOutageInterceptor({
    windowMs:
      options.deps.providers?.transientRetryWindowMs ?? config.orders.transientRetryWindowMs,
    intervalMs:
      options.deps.providers?.transientRetryIntervalMs ?? config.orders.transientRetryIntervalMs,
  });
  const common = {
    connection: options.connection,
    namespace: config.temporal.namespace,
    // Same converter as every client: histories hold only ciphertext (issue 17).
    dataConverter: dataConverterFor(config),
    taskQueue,
    ...tracing,
    interceptors: {
      ...tracing.interceptors,
      // A database failover waits like a provider outage (src/worker/database-outage.ts).
      activity: [
        ...(tracing.interceptors?.activity ?? []),
        () => ({ inbound: outage }),
        // Innermost: a result too large for the history is refused where it is made.
        (ctx) => ({ inbound: new ResultSizeInterceptor(ctx.info.activityType) }),
      ],
    },
    // Provider URL from config unless the caller injected its own (tests run their own sandbox);
    // the transient retry window from config unless the injected providers name one.
    activities: activitiesOfDomains(domains, {
      config,
      ...(ownProducer ? { producer: ownProducer } : {}),
      ...options.deps,
      providers: {
        url: config.providers.url,
        transientRetryWindowMs: config.orders.transientRetryWindowMs,
        transientRetryIntervalMs: config.orders.transientRetryIntervalMs,
        ...options.deps.providers,
      },
    }),
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivities,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTasks,
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
    ...pollersOf(config),
    // Eager dispatch and sticky queues as fairness needs them (src/worker/fairness-options.ts).
    ...fairnessOptionsOf(config, domains),
  } satisfies Omit<WorkerOptions, 'workflowBundle'>;
  // Every declared provider's queue (and any a limit names) is polled, limited or not: a limit
  // set later needs no deploy, and a step's tasks never wait on a queue nobody polls.
  const providers = [
    ...new Set([...declaredProviders(domains), ...Object.keys(config.fairness.providerRateLimits)]),
  ].sort();
  for (const queue of await applyTaskQueueConfig(options.connection.workflowService, {
    namespace: config.temporal.namespace,
    taskQueue,
    providers,
    fairness: config.fairness,
  }))
    if (queue.provider !== undefined || queue.weights > 0 || queue.unsetWeights > 0)
      log.info(queue, 'task queue config set');
  // The providers' queues: activities only, unversioned (an activity carries no workflow
  // code, so any build's worker may run it).
  const providerWorkers = await Promise.all(
    providers.map((provider) => {
      // A limited provider's calls each wait for their moment (src/activities/provider-pace.ts).
      const pace = providerPaceInterceptor({ provider, config, pool: options.deps.pool });
      return Worker.create({
        ...common,
        ...(pace
          ? {
              interceptors: {
                ...common.interceptors,
                activity: [...common.interceptors.activity, pace],
              },
            }
          : {}),
        taskQueue: providerTaskQueue(taskQueue, provider),
      });
    }),
  );
  const deployment = config.worker.deploymentName ?? taskQueue;
  const versioned = config.worker.versioning === 'pinned';
  const code = versioned ? bundleCodeOf(bundle) : undefined;
  const buildId = code === undefined ? undefined : buildIdOf(code);
  /** A worker of the deployment's build `id` (this one's, or an older one's on its stored code). */
  const workerOf = (id: string, workflowBundle: WorkerOptions['workflowBundle']) =>
    Worker.create({
      ...common,
      workflowBundle,
      workerDeploymentOptions: {
        version: { deploymentName: deployment, buildId: id },
        useWorkerVersioning: true,
        defaultVersioningBehavior: 'PINNED',
      },
    });
  const worker =
    buildId === undefined
      ? await Worker.create({ ...common, workflowBundle: bundle })
      : await workerOf(buildId, bundle);
  const drains =
    buildId === undefined
      ? undefined
      : buildDrains({
          workflowService: options.connection.workflowService,
          namespace: config.temporal.namespace,
          deployment,
          buildId,
          code: code!,
          pool: options.deps.pool,
          createWorker: (id, stored) => workerOf(id, { code: namedForStackTraces(stored, id) }),
          makeCurrent: config.worker.makeCurrent,
          maxDrains: config.worker.maxDrains,
          intervalMs: config.worker.drainTurnMs,
          withDeadline: (call) =>
            options.connection.withDeadline(Date.now() + TEMPORAL_CALL_DEADLINE_MS, call),
          onReport: options.onBuildReport,
          log,
        });
  const run = worker.run.bind(worker);
  worker.run = async () => {
    const running = runTogether(worker, run, providerWorkers);
    const ended = running.then(
      () => undefined,
      () => undefined,
    );
    try {
      // Stores the build, makes it current when it should be, then serves the deployment's
      // other builds; unless the worker stops first (SIGTERM while it starts).
      await Promise.race([
        drains?.start().catch((err: unknown) => {
          log.error({ err }, 'the worker stops: its build could not be settled in its deployment');
          if (worker.getState() === 'RUNNING') worker.shutdown();
          throw err;
        }),
        ended,
      ]);
      await running;
    } finally {
      await drains?.stop();
      await ownProducer?.close();
      await running.catch(() => undefined);
    }
  };
  return worker;
}

/**
 * The main worker and its providers' workers, run as one: when one stops (a shutdown, a
 * failure) the others are shut down too, since a provider's queue left unpolled would stall
 * its steps. Settles when all have stopped, with the first failure.
 */
async function runTogether(main: Worker, run: () => Promise<void>, others: Worker[]) {
  const stopAll = () => {
    for (const w of [main, ...others]) if (w.getState() === 'RUNNING') w.shutdown();
  };
  const outcomes = await Promise.allSettled(
    [run(), ...others.map((w) => w.run())].map((p) => p.finally(stopAll)),
  );
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw failed.reason;
}

/** A bundle's code, to hash and store (a path is read once here). */
function bundleCodeOf(bundle: WorkerOptions['workflowBundle']): string {
  if (!bundle) throw new TypeError('a versioned worker needs its workflow bundle');
  return 'code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8');
}

/**
 * The worker's long polls per task type (WORKER_*_TASK_POLLERS). As poller behaviours: the
 * SDK (1.24) documents `maxConcurrentWorkflowTaskPolls` but ignores it, always polling 10.
 */
export function pollersOf(
  config: Pick<Config, 'worker'>,
): Pick<WorkerOptions, 'workflowTaskPollerBehavior' | 'activityTaskPollerBehavior'> {
  return {
    workflowTaskPollerBehavior: {
      type: 'simple-maximum',
      maximum: config.worker.workflowTaskPollers,
    },
    activityTaskPollerBehavior: {
      type: 'simple-maximum',
      maximum: config.worker.activityTaskPollers,
    },
  };
}

/** A logger that drops everything (tests that create workers without one). */
const silentLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The longest one Temporal call of the deployment's refresh may take. */
const TEMPORAL_CALL_DEADLINE_MS = 30_000;

/**
 * A stored bundle as the SDK loads it, its source map's `file` named after its build: the SDK
 * keys each loaded bundle's source map by that name (every bundle's is `workflow-bundle.js`,
 * src/worker/bundle-options.ts), and the stack traces of two builds in one process must not
 * share one map. The code was verified before; the map is not run.
 */
function namedForStackTraces(code: string, buildId: string): string {
  const marker = '//# sourceMappingURL=data:application/json;charset=utf-8;base64,';
  const at = code.lastIndexOf(marker);
  if (at < 0) return code;
  const map = JSON.parse(Buffer.from(code.slice(at + marker.length), 'base64').toString('utf8'));
  map.file = `workflow-bundle-${buildId}.js`;
  return code.slice(0, at) + marker + Buffer.from(JSON.stringify(map)).toString('base64');
}
