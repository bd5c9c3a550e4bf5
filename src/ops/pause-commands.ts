/**
 * `orders pause|resume`: stop hammering a provider known to be down, on Temporal's activity
 * pause (server ≥ 1.28). A paused activity is not retried until unpaused; the workflow keeps
 * waiting on it, unaware (no history event), so no order parks because of the pause.
 * Pause is per activity (there is no batch pause); resume is one batch job that unpauses
 * with jitter, so the recovering provider is not hit by every order in the same second.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import type { StepName } from '../workflows/order-definitions';
import { runBatch } from './batch-operation';
import { PARKED_STEPS } from './bulk-selection';
import { confirmAction } from './confirm';
import type { OpsContext } from './context';
import { batchReasonOf, operatorActionOf } from './operator-action';
import { listExecutions, ORDER_WORKFLOW_TYPE, quoteValue } from './order-lookup';
import {
  EXIT,
  formatTable,
  parseDuration,
  parsePositiveInt,
  UsageError,
  type CommandResult,
} from './output';

/** The activity type behind each step, and the OrderStep values while it runs. */
export const STEP_ACTIVITY: Record<StepName, { activityType: string; orderSteps: string[] }> = {
  reserve: { activityType: 'reserveInventory', orderSteps: ['reserving'] },
  charge: { activityType: 'chargePayment', orderSteps: ['charging'] },
  email: { activityType: 'sendEmail', orderSteps: ['emailing'] },
  refund: { activityType: 'refundPayment', orderSteps: ['compensating'] },
  release: { activityType: 'releaseInventory', orderSteps: ['compensating'] },
};

/** OrderStep of an order whose step retries a transient cause (issue 15's contract). */
export const WAITING_STEP = 'waiting';

/** Default of `resume --jitter`: unpaused activities start at random within this window. */
export const DEFAULT_RESUME_JITTER = '30s';

/** What pause/resume act on: one step's activity, or every pending activity of waiting orders. */
export interface PauseSelection {
  /** Undefined with `--all`: any activity type. */
  step?: StepName;
  prefix?: string;
  startedBefore?: Date;
}

/** The visibility query of the running orders that may have the selected activity pending. */
export function buildPauseQuery(sel: PauseSelection): string {
  const steps = sel.step ? [...STEP_ACTIVITY[sel.step].orderSteps, WAITING_STEP] : [WAITING_STEP];
  const parts = [
    `WorkflowType = '${ORDER_WORKFLOW_TYPE}'`,
    `ExecutionStatus = 'Running'`,
    steps.length === 1
      ? `OrderStep = ${quoteValue(steps[0]!)}`
      : `OrderStep IN (${steps.map(quoteValue).join(', ')})`,
  ];
  if (sel.prefix) parts.push(`OrderId STARTS_WITH ${quoteValue(sel.prefix)}`);
  if (sel.startedBefore) parts.push(`StartTime < '${sel.startedBefore.toISOString()}'`);
  return parts.join(' AND ');
}

function parsePauseArgs(argv: string[], verb: 'pause' | 'resume') {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      step: { type: 'string' },
      all: { type: 'boolean' },
      prefix: { type: 'string' },
      'older-than': { type: 'string' },
      limit: { type: 'string' },
      reason: { type: 'string' },
      by: { type: 'string' },
      yes: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      jitter: { type: 'string' },
    },
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  if (verb === 'pause' && values.jitter !== undefined)
    throw new UsageError('--jitter is an option of resume');
  const step = values.step as string | undefined;
  if ((step === undefined) === !values.all) {
    throw new UsageError(
      `give exactly one of --step ${PARKED_STEPS.join('|')} or --all (waiting orders)`,
    );
  }
  if (step !== undefined && !(step in STEP_ACTIVITY)) {
    throw new UsageError(`--step must be one of ${PARKED_STEPS.join(', ')}, got ${step}`);
  }
  const prefix = values.prefix as string | undefined;
  if (prefix !== undefined && (prefix === '' || /['"\\]/.test(prefix))) {
    throw new UsageError('--prefix must be non-empty, without quotes or \\');
  }
  const olderThan = values['older-than'] as string | undefined;
  const selection: PauseSelection = {
    ...(step !== undefined ? { step: step as StepName } : {}),
    ...(prefix !== undefined ? { prefix } : {}),
    ...(olderThan !== undefined
      ? { startedBefore: new Date(Date.now() - parseDuration(olderThan, '--older-than')) }
      : {}),
  };
  return {
    values,
    selection,
    limit: parsePositiveInt(values.limit as string | undefined, '--limit', 10_000),
    action: operatorActionOf({
      by: values.by as string | undefined,
      reason: values.reason as string | undefined,
    }),
  };
}

/** A pending activity of a selected order. */
interface PendingActivity {
  orderId: string;
  workflowId: string;
  runId: string;
  activityId: string;
  activityType: string;
  paused: boolean;
  attempt: number;
}

/** The selected orders' pending activities of the selected type (any type with `--all`). */
async function findPendingActivities(client: Client, sel: PauseSelection, limit: number) {
  const query = buildPauseQuery(sel);
  const infos = await listExecutions(client, query, limit);
  const type = sel.step ? STEP_ACTIVITY[sel.step].activityType : undefined;
  const found: PendingActivity[] = [];
  let next = 0;
  const worker = async () => {
    while (next < infos.length) {
      const info = infos[next++]!;
      const described = await client.workflowService
        .describeWorkflowExecution({
          namespace: client.options.namespace,
          execution: { workflowId: info.workflowId, runId: info.runId },
        })
        .catch(() => undefined); // closed or gone since the list: nothing to pause
      for (const a of described?.pendingActivities ?? []) {
        const activityType = a.activityType?.name ?? '';
        if (type !== undefined && activityType !== type) continue;
        found.push({
          orderId: info.typedSearchAttributes.get(SEARCH_ATTRIBUTE.orderId) ?? info.workflowId,
          workflowId: info.workflowId,
          runId: info.runId,
          activityId: a.activityId ?? '',
          activityType,
          paused: a.paused ?? false,
          attempt: a.attempt ?? 0,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { query, orders: infos.length, activities: found };
}

function previewTable(activities: PendingActivity[]): string {
  return formatTable(
    ['ORDER', 'ACTIVITY', 'ATTEMPT', 'PAUSED', 'WORKFLOW'],
    activities
      .slice(0, 20)
      .map((a) => [a.orderId, a.activityType, a.attempt, String(a.paused), a.workflowId]),
  );
}

/** `orders pause --step S | --all [--prefix P] [--older-than D] [--reason R] [--by B] [--yes] [--dry-run]` */
export async function pauseOrders(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { values, selection, limit, action } = parsePauseArgs(argv, 'pause');
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
  let next = 0;
  const worker = async () => {
    while (next < toPause.length) {
      const a = toPause[next++]!;
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
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return {
    json: { ...base, paused, failed: failures.length, failures, action, reason },
    human: `pause: ${paused} paused, ${base.alreadyPaused} already paused, ${failures.length} failed (finished or gone meanwhile) · query: ${query}`,
  };
}

/** `orders resume --step S | --all [--jitter 30s] [--prefix P] [--older-than D] [--reason R] [--by B] [--yes] [--dry-run]` */
export async function resumeOrders(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { values, selection, limit, action } = parsePauseArgs(argv, 'resume');
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
  const type = selection.step ? STEP_ACTIVITY[selection.step].activityType : undefined;
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
