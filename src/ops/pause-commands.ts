/**
 * `orders pause|resume`: stop hammering a provider known to be down, on Temporal's activity
 * pause (server ≥ 1.28). A paused activity is not retried until unpaused; the workflow keeps
 * waiting on it, unaware (no history event), so no order parks because of the pause.
 * Pause is per activity (there is no batch pause); resume is one batch job that unpauses
 * with jitter, so the recovering provider is not hit by every order in the same second.
 */
import { randomUUID } from 'node:crypto';
import { msToTs } from '@temporalio/common/lib/time';
import { runBatch } from './batch-operation';
import { forEachLimited } from '../util/run-limited';
import { confirmAction } from './confirm';
import type { OpsContext } from './context';
import type { OpsDomain } from './ops-domain';
import { batchReasonOf } from './operator-action';
import { EXIT, formatTable, parseDuration, type CommandResult } from './output';
import {
  findPendingActivities,
  parsePauseArgs,
  activityTypeOf,
  type PendingActivity,
} from './pause-selection';

/** Default of `resume --jitter`: unpaused activities start at random within this window. */
export const DEFAULT_RESUME_JITTER = '30s';

function previewTable(activities: PendingActivity[]): string {
  return formatTable(
    ['ORDER', 'ACTIVITY', 'ATTEMPT', 'PAUSED', 'WORKFLOW'],
    activities
      .slice(0, 20)
      .map((a) => [a.orderId, a.activityType, a.attempt, String(a.paused), a.workflowId]),
  );
}

/** `orders pause --step S | --all [--prefix P] [--older-than D] [--reason R] [--by B] [--yes] [--dry-run]` */
export async function pauseOrders(
  ctx: OpsContext,
  argv: string[],
  domain?: OpsDomain,
): Promise<CommandResult> {
  const { values, selection, limit, action } = parsePauseArgs(argv, 'pause', domain);
  const client = await ctx.temporal();
  const { query, orders, activities } = await findPendingActivities(client, selection, limit);
  const toPause = activities.filter((a) => !a.paused);
  const base = {
    query,
    orders,
    activities: activities.length,
    alreadyPaused: activities.length - toPause.length,
  };
  if (values['dry-run']) {
    return {
      json: { ...base, dryRun: true, wouldPause: toPause.length, preview: activities.slice(0, 20) },
      human: `${toPause.length} activit(ies) would be paused (${base.alreadyPaused} already paused) · query: ${query}\n${previewTable(activities)}`,
    };
  }
  if (
    toPause.length > 0 &&
    !(await confirmAction(`pause ${toPause.length} activit(ies) (${query})?`, values.yes ?? false))
  ) {
    return {
      json: { ...base, aborted: true },
      human: 'aborted: nothing paused',
      exitCode: EXIT.failure,
    };
  }
  const reason = batchReasonOf('pause', action);
  const identity = `onceflow-cli pause ${action.by}`;
  let paused = 0;
  const failures: Array<{ workflowId: string; activityId: string; error: string }> = [];
  await forEachLimited(toPause, 8, async (a) => {
    try {
      await client.workflowService.pauseActivity({
        namespace: client.options.namespace,
        execution: { workflowId: a.workflowId, runId: a.runId },
        identity,
        id: a.activityId,
        reason,
        requestId: randomUUID(),
      });
      paused++;
    } catch (err) {
      // Completed or failed between the describe and the pause: nothing left to pause.
      failures.push({
        workflowId: a.workflowId,
        activityId: a.activityId,
        error: (err as Error).message,
      });
    }
  });
  return {
    json: { ...base, paused, failed: failures.length, failures, action, reason },
    human: `pause: ${paused} paused, ${base.alreadyPaused} already paused, ${failures.length} failed (finished or gone meanwhile) · query: ${query}`,
  };
}

/** `orders resume --step S | --all [--jitter 30s] [--prefix P] [--older-than D] [--reason R] [--by B] [--yes] [--dry-run]` */
export async function resumeOrders(
  ctx: OpsContext,
  argv: string[],
  domain?: OpsDomain,
): Promise<CommandResult> {
  const { values, selection, limit, action } = parsePauseArgs(argv, 'resume', domain);
  const jitterMs = parseDuration(
    (values.jitter as string | undefined) ?? DEFAULT_RESUME_JITTER,
    '--jitter',
  );
  const client = await ctx.temporal();
  const { query, orders, activities } = await findPendingActivities(client, selection, limit);
  const pausedActivities = activities.filter((a) => a.paused);
  // One target per run even when a run has several paused activities of the type.
  const targets = [
    ...new Map(
      pausedActivities.map((a) => [a.workflowId, { workflowId: a.workflowId, runId: a.runId }]),
    ).values(),
  ];
  const base = {
    query,
    orders,
    paused: pausedActivities.length,
    workflows: targets.length,
    jitterMs,
  };
  if (values['dry-run']) {
    return {
      json: { ...base, dryRun: true, preview: pausedActivities.slice(0, 20) },
      human: `${pausedActivities.length} paused activit(ies) in ${targets.length} order(s) would be resumed, spread over ${jitterMs} ms · query: ${query}\n${previewTable(pausedActivities)}`,
    };
  }
  if (targets.length === 0) {
    return {
      json: { ...base, resumed: 0, failed: 0, jobs: [] },
      human: `resume: nothing paused · query: ${query}`,
    };
  }
  if (
    !(await confirmAction(
      `resume ${pausedActivities.length} paused activit(ies) in ${targets.length} order(s)?`,
      values.yes ?? false,
    ))
  ) {
    return {
      json: { ...base, aborted: true },
      human: 'aborted: nothing resumed',
      exitCode: EXIT.failure,
    };
  }
  const reason = batchReasonOf('resume', action);
  const type = activityTypeOf(selection);
  const jobs = await runBatch(client, {
    verb: 'resume',
    reason,
    targets,
    label: `resume ${targets.length} order(s)`,
    operation: {
      unpauseActivitiesOperation: {
        identity: `onceflow-cli resume ${action.by}`,
        ...(type !== undefined ? { type } : { matchAll: true }),
        // The outage is over: the step gets its whole retry budget again.
        resetAttempts: true,
        jitter: msToTs(jitterMs),
      },
    },
  });
  const resumed = jobs.reduce((n, j) => n + j.completed, 0);
  const failed = jobs.reduce((n, j) => n + j.failed, 0);
  return {
    json: { ...base, resumed, failed, jobs, action, reason },
    human: `resume: ${resumed} order(s) unpaused (jitter ${jitterMs} ms), ${failed} failed · batch ${jobs.map((j) => j.jobId).join(', ')}`,
    exitCode: failed > 0 ? EXIT.failure : EXIT.ok,
  };
}
