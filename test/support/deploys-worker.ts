import type { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../../src/config';
import type { BuildReport } from '../../src/worker/build-report';
import { waitFor } from '../../src/util/wait';
import { createWorker } from '../../src/worker/create-worker';
import { deploysDomain } from './domains/deploys';
import type { OrderEnv } from './order-env';
import { workflowBundle } from './workflow-bundle';

/** A worker of one version of the deploy test domain, running. */
export interface DeploysWorker {
  worker: Worker;
  running: Promise<void>;
  /** Graceful stop: the worker finishes its tasks and its drains stop. */
  stop(): Promise<void>;
}

/**
 * Starts a worker of version `v` of the deploy test domain on `taskQueue` (its own worker
 * deployment): versioned unless `config.worker.versioning` says `off`.
 */
export async function startDeploysWorker(
  env: OrderEnv,
  connection: NativeConnection,
  config: Config,
  options: {
    v: 'v1' | 'v2';
    taskQueue: string;
    onBuildReport?(r: readonly BuildReport[]): void;
    /** Its bundle's code, when not that version's own (a release with a trivial change). */
    code?: string;
    /** How long a failing mail waits before its step parks. Default: an hour. */
    transientRetryWindowMs?: number;
  },
): Promise<DeploysWorker> {
  const domain = deploysDomain(options.v);
  const worker = await createWorker({
    domains: [domain],
    connection,
    config,
    deps: {
      pool: env.db.pool,
      providers: {
        url: env.providers.url,
        timeoutMs: 5000,
        transientRetryWindowMs: options.transientRetryWindowMs ?? 3_600_000,
      },
    },
    taskQueue: options.taskQueue,
    workflowBundle: options.code
      ? { code: options.code }
      : await workflowBundle({ domains: [domain] }),
    onBuildReport: options.onBuildReport,
  });
  const running = worker.run();
  return {
    worker,
    running,
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}

/** The current build of `deployment`, as Temporal says. */
export async function currentBuildOf(
  connection: NativeConnection,
  config: Config,
  deployment: string,
): Promise<string | undefined> {
  const described = await connection.workflowService.describeWorkerDeployment({
    namespace: config.temporal.namespace,
    deploymentName: deployment,
  });
  return (
    described.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? undefined
  );
}

/** Waits (a minute at most) until `buildId` is the current build of `deployment`. */
export function becomesCurrent(
  connection: NativeConnection,
  config: Config,
  deployment: string,
  buildId: string,
): Promise<boolean> {
  return waitFor(async () => (await currentBuildOf(connection, config, deployment)) === buildId, {
    timeoutMs: 60_000,
    what: `build ${buildId} to be current`,
  });
}
