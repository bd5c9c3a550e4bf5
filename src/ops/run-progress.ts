/**
 * Whether a running run can go on on its code, read from Temporal: a run that cannot (its
 * history does not replay on its build's code, or no worker of its build polls) writes
 * nothing itself, so its Step and attention memo keep their last word. `show` says it from
 * here instead: the build the run is pinned to and its workflow task, failing or unclaimed.
 */
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type pg from 'pg';
import { loadBuild, type BuildRefusal } from '../db/workflow-build-store';
import { tsToDate } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';

/** A workflow task scheduled this long ago and not started: no worker of its build polls. */
export const UNCLAIMED_TASK_AFTER_MS = 60_000;

/** The build a run is pinned to (Temporal's worker versioning; docs/deploying.md). */
export interface RunBuild {
  deployment: string;
  buildId: string;
  /** `pinned` or `auto-upgrade`. */
  behavior: string;
}

/** Why a run makes no progress, when it makes none. */
export type RunStall =
  | {
      kind: 'task-failing';
      /** Attempts of the workflow task so far. */
      attempt: number;
      /** Temporal's cause, e.g. `non-deterministic-error`. */
      cause: string;
      message: string;
      since: string;
    }
  | { kind: 'no-worker'; since: string }
  /** Pinned to an older build whose code no worker stored: nobody can run it (builds list). */
  | { kind: 'build-unserved' }
  /**
   * Pinned to a build (the current one too) whose stored code no drain will run (it does not
   * hash to its build ID, or was built with another SDK): only a worker of that build can
   * (builds list).
   */
  | { kind: 'build-refused'; refusal: BuildRefusal['kind']; reason: string };

/** What show adds about a run's progress. */
export interface RunProgress {
  build?: RunBuild;
  stalled?: RunStall;
}

/** Lower-case, dashed: `WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR` → `non-deterministic-error`. */
function enumWord(name: string | undefined, prefix: string): string {
  return (name ?? 'unspecified').replace(prefix, '').toLowerCase().replace(/_/g, '-');
}

/** The run's pinned build, when it has one. */
export function runBuildOf(described: WorkflowExecutionDescription): RunBuild | undefined {
  const info = described.raw.workflowExecutionInfo?.versioningInfo;
  const version = info?.deploymentVersion;
  if (!version?.buildId) return undefined;
  // An operator's override (`temporal workflow update-options`) wins over the worker's word.
  const override = info?.versioningOverride;
  const behavior = override?.autoUpgrade
    ? 'auto-upgrade'
    : override?.pinned
      ? 'pinned'
      : enumWord(
          temporal.api.enums.v1.VersioningBehavior[info?.behavior ?? 0],
          'VERSIONING_BEHAVIOR_',
        );
  return { deployment: version.deploymentName ?? '', buildId: version.buildId, behavior };
}

/** The newest WorkflowTaskFailed event of the run (its first failure of the current task). */
async function lastTaskFailure(client: Client, workflowId: string, runId: string) {
  const { history } = await client.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: client.options.namespace,
    execution: { workflowId, runId },
    maximumPageSize: 100,
  });
  return history?.events?.find((e) => e.workflowTaskFailedEventAttributes);
}

/**
 * Why no worker but the build's own can run its runs, by the rule `builds list` and the
 * worker's drains use: its stored code is refused (whether current or not: no drain runs
 * it), or it is not current and its code is not stored. Undefined when a drain can: its stored
 * code is verified, or it is current (its own workers store its code as they start).
 */
async function unservedStall(
  client: Client,
  pool: pg.Pool,
  build: RunBuild,
): Promise<RunStall | undefined> {
  const stored = await loadBuild(pool, build.buildId);
  if (stored.state === 'refused')
    return { kind: 'build-refused', refusal: stored.kind, reason: stored.reason };
  if (stored.state !== 'missing') return undefined;
  const d = await client.workflowService.describeWorkerDeployment({
    namespace: client.options.namespace,
    deploymentName: build.deployment,
  });
  const current = d.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId;
  return build.buildId === current ? undefined : { kind: 'build-unserved' };
}

/**
 * Reads the run's build and, for a running run, whether it can go on: its workflow task
 * failing (from its second attempt), its build unserved (the rule `builds list` uses: its
 * stored code refused, or not current and its code not stored), or its task not taken for
 * UNCLAIMED_TASK_AFTER_MS.
 */
export async function readRunProgress(
  client: Client,
  pool: pg.Pool,
  described: WorkflowExecutionDescription,
  now = Date.now(),
): Promise<RunProgress> {
  const build = runBuildOf(described);
  if (described.status.name !== 'RUNNING') return { build };
  const task = described.raw.pendingWorkflowTask;
  const scheduled = task && (task.originalScheduledTime ?? task.scheduledTime);
  const since = scheduled ? tsToDate(scheduled).toISOString() : '';
  if (task && Number(task.attempt ?? 1) > 1) {
    const failed = await lastTaskFailure(client, described.workflowId, described.runId);
    const attrs = failed?.workflowTaskFailedEventAttributes;
    return {
      build,
      stalled: {
        kind: 'task-failing',
        attempt: Number(task.attempt),
        cause: enumWord(
          temporal.api.enums.v1.WorkflowTaskFailedCause[attrs?.cause ?? 0],
          'WORKFLOW_TASK_FAILED_CAUSE_',
        ),
        message: attrs?.failure?.message ?? '',
        since: failed?.eventTime ? tsToDate(failed.eventTime).toISOString() : since,
      },
    };
  }
  // Said even while the run waits on a timer: when it fires, nobody will run the run.
  const unserved = build ? await unservedStall(client, pool, build) : undefined;
  if (unserved) return { build, stalled: unserved };
  const unclaimed =
    task?.state ===
      temporal.api.enums.v1.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED &&
    scheduled &&
    now - tsToDate(scheduled).getTime() > UNCLAIMED_TASK_AFTER_MS;
  return unclaimed ? { build, stalled: { kind: 'no-worker', since } } : { build };
}

/** The `build` line of show. */
export function buildLine(build: RunBuild | undefined): string | undefined {
  return build && `${build.buildId} (${build.behavior}; deployment ${build.deployment})`;
}

/**
 * The `cannot go on` line of show, and what to do: the run's history does not replay on the
 * code of its build, or nobody runs its build.
 */
export function stallLine(progress: RunProgress): string | undefined {
  const { stalled, build } = progress;
  if (!stalled) return undefined;
  const of = build ? `build ${build.buildId}` : 'its task queue';
  if (stalled.kind === 'build-refused')
    return `pinned to build ${build?.buildId}, whose stored code is refused (${stalled.reason}): no worker runs it but one of that build; start one (npx onceflow builds list; docs/deploying.md, "A build whose stored code is refused")`;
  if (stalled.kind === 'build-unserved')
    return `pinned to build ${build?.buildId}, whose code no worker stored: nobody can run it; start a worker of that build (npx onceflow builds list; docs/deploying.md, "A build nobody runs")`;
  if (stalled.kind === 'no-worker')
    return `no worker of ${of} has taken its workflow task since ${stalled.since}: start one (npx onceflow builds list; docs/deploying.md, "A build nobody runs")`;
  return `its workflow task fails on the code of ${of} since ${stalled.since} (${stalled.cause}, attempt ${stalled.attempt}: ${stalled.message}); Temporal retries it; run the code it started on (docs/deploying.md, "A run that cannot go on")`;
}
