// Which build of a worker deployment new runs start on (docs/deploying.md, "Which build is
// current"): a starting worker makes its own build current only when the deployment has never
// had it current (or ramping) and it is newer than the current one, or when the deploy says so
// (WORKER_MAKE_CURRENT). A rollback (the operator setting an older build current) therefore
// outlives any restart of the newer build's workers.
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { WorkflowService } from '@temporalio/client';
import {
  GRPC_STATUS,
  grpcStatusName,
  grpcStatusOf,
  isTransientGrpcError,
} from '../temporal/grpc-status';

type VersionSummary =
  temporal.api.deployment.v1.WorkerDeploymentInfo.IWorkerDeploymentVersionSummary;
type DeploymentInfo = temporal.api.deployment.v1.IWorkerDeploymentInfo;

const { WorkerDeploymentVersionStatus: Status } = temporal.api.enums.v1;

/** WORKER_MAKE_CURRENT: whether a starting worker makes its build the current one. */
export type MakeCurrentPolicy = 'auto' | 'never' | 'always';

/** How long a starting worker waits, over transient Temporal errors, to settle its build. */
export const MAKE_CURRENT_WAIT_MS = 120_000;

/** Options of settleCurrentBuild. */
export interface SettleCurrentOptions {
  workflowService: WorkflowService;
  namespace: string;
  deployment: string;
  buildId: string;
  /** WORKER_MAKE_CURRENT. Default: `auto`. */
  policy?: MakeCurrentPolicy;
  /** The whole wait: registration, transient errors, the call. Default: MAKE_CURRENT_WAIT_MS. */
  waitMs?: number;
  /** Whether to give up (the worker is stopping); checked between attempts. */
  stopped?: () => boolean;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
}

/**
 * The build could not be made current, or its deployment not read, within the wait (or the
 * server refused for a reason a retry does not change). Names what it waited for.
 */
export class BuildNotCurrentError extends Error {
  override readonly name = 'BuildNotCurrentError';
  constructor(
    readonly deployment: string,
    readonly buildId: string,
    readonly waitedFor: string,
    readonly attempts: number,
    cause: unknown,
  ) {
    super(
      `build ${buildId} of worker deployment ${deployment}: gave up after ${attempts} attempt(s) waiting for ${waitedFor}: ${grpcStatusName(cause)}: ${(cause as Error)?.message ?? String(cause)}`,
      { cause },
    );
  }
}

/** Whether the deployment has had this version current or ramping, ever (a rollback's source). */
export function wasActivated(v: VersionSummary): boolean {
  return (
    !!v.firstActivationTime ||
    !!v.lastCurrentTime ||
    !!v.currentSinceTime ||
    !!v.rampingSinceTime ||
    [
      Status.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT,
      Status.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING,
      Status.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING,
      Status.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINED,
    ].includes(v.status ?? Status.WORKER_DEPLOYMENT_VERSION_STATUS_UNSPECIFIED)
  );
}

/** Why `auto` leaves the current build alone, or undefined when this build is to be current. */
export function reasonToLeaveCurrent(info: DeploymentInfo, buildId: string): string | undefined {
  const summaries = info.versionSummaries ?? [];
  const current = info.routingConfig?.currentDeploymentVersion?.buildId || undefined;
  const mine = summaries.find((v) => v.deploymentVersion?.buildId === buildId);
  if (!current || !mine) return undefined;
  if (wasActivated(mine))
    return `this build was current before and ${current} is now (a rollback, or an older build started to serve its runs)`;
  const theirs = summaries.find((v) => v.deploymentVersion?.buildId === current);
  const seenAt = (v: VersionSummary | undefined) =>
    v?.createTime ? tsToMs(v.createTime) : undefined;
  const [mineAt, theirsAt] = [seenAt(mine), seenAt(theirs)];
  if (mineAt !== undefined && theirsAt !== undefined && mineAt < theirsAt)
    return `the deployment saw this build before the current one, ${current}`;
  return undefined;
}

/**
 * Once the server knows this build (its first poll registers it), makes it current when the
 * policy says so: `always`; `auto` unless reasonToLeaveCurrent finds a reason; never for
 * `never`. Retries transient Temporal errors within `waitMs`, logging each wait; then throws
 * a BuildNotCurrentError naming what it waited for. Resolves whether the build is current.
 */
export async function settleCurrentBuild(options: SettleCurrentOptions): Promise<boolean> {
  try {
    return await settle(options);
  } catch (err) {
    if (err === STOPPED) return false;
    throw err;
  }
}

/** Thrown inside settle when the worker stops meanwhile: nothing to report. */
const STOPPED = Symbol('stopped');

async function settle(options: SettleCurrentOptions): Promise<boolean> {
  const { workflowService: service, namespace, deployment, buildId, log } = options;
  const policy = options.policy ?? 'auto';
  const deadline = Date.now() + (options.waitMs ?? MAKE_CURRENT_WAIT_MS);
  let attempts = 0;
  /**
   * Calls `call` until it resolves a value, retrying transient errors until the deadline;
   * `notYet` says why an undefined result is not one yet.
   */
  async function retrying<T>(
    waitedFor: string,
    call: () => Promise<T | undefined>,
    notYet = 'not yet',
  ): Promise<T> {
    for (;;) {
      attempts++;
      let failure: unknown;
      if (options.stopped?.()) throw STOPPED;
      try {
        const value = await call();
        if (value !== undefined) return value;
        failure = new Error(notYet);
      } catch (err) {
        if (!isTransientGrpcError(err))
          throw new BuildNotCurrentError(deployment, buildId, waitedFor, attempts, err);
        failure = err;
        log.warn(
          { deployment, buildId, err: (err as Error).message, status: grpcStatusName(err) },
          `Temporal failed a call while waiting for ${waitedFor}; retrying`,
        );
      }
      if (Date.now() >= deadline)
        throw new BuildNotCurrentError(deployment, buildId, waitedFor, attempts, failure);
      // A retry interval, not a synchronisation: 200 ms, growing to 5 s.
      await new Promise((r) => setTimeout(r, Math.min(200 * attempts, 5_000)));
    }
  }

  const info = await retrying(
    `build ${buildId} to be registered`,
    async () => {
      const described = await service
        .describeWorkerDeployment({ namespace, deploymentName: deployment })
        .catch((err: unknown) => {
          // The deployment exists from the first poll of any of its workers on.
          if (grpcStatusOf(err) === GRPC_STATUS.NOT_FOUND) return undefined;
          throw err;
        });
      const d = described?.workerDeploymentInfo;
      const known = d?.versionSummaries?.some((v) => v.deploymentVersion?.buildId === buildId);
      return known ? d! : undefined;
    },
    'the deployment does not list it yet (its worker has not polled)',
  );
  const current = info.routingConfig?.currentDeploymentVersion?.buildId || undefined;
  if (current === buildId) {
    log.info({ deployment, buildId }, 'build is current');
    return true;
  }
  const reason =
    policy === 'never'
      ? 'WORKER_MAKE_CURRENT=never: the deploy makes builds current'
      : policy === 'auto'
        ? reasonToLeaveCurrent(info, buildId)
        : undefined;
  if (reason) {
    log.info(
      { deployment, buildId, current, reason },
      'this build serves its own runs; new runs stay on the current build (to change it: temporal worker deployment set-current-version)',
    );
    return false;
  }
  await retrying(`build ${buildId} to be made current`, () =>
    service.setWorkerDeploymentCurrentVersion({
      namespace,
      deploymentName: deployment,
      buildId,
      identity: 'onceflow worker',
      ignoreMissingTaskQueues: true,
    }),
  );
  log.info({ deployment, buildId, previous: current, policy }, 'build is current');
  return true;
}
