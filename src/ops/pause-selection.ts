/**
 * What `orders pause|resume` act on: the pending activities of one step (its activity type)
 * in the running orders at that step or waiting, or with `--all` every pending activity of
 * every order in a step (reserving … compensating) or waiting: an activity retrying a
 * transient cause in its fast phase shows the step itself, not `waiting`. Found by a
 * visibility query, then each run's pending activities.
 */
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import type { OrderActivities as Activities } from '../domains/orders/activities';
import { PUBLISH_ACTIVITY } from '../activities/publish-contract';
import { SEARCH_ATTRIBUTE, SYSTEM_ATTRIBUTE, visibility } from '../temporal/search-attributes';
import { WORKFLOW_TYPE } from '../domains/orders/workflows/workflow-types';
import type { StepName } from '../domains/orders/workflows/order-definitions';
import { checkPrefix, PARKED_STEPS } from './bulk-selection';
import type { OpsDomain } from './ops-domain';
import { forEachLimited } from '../util/run-limited';
import { operatorActionOf } from './operator-action';
import { listExecutions } from './order-lookup';
import { parseDuration, parsePositiveInt, UsageError } from './output';

/** The activity type behind each step, and the Step values while it runs. */
export const STEP_ACTIVITY: Record<
  StepName,
  { activityType: keyof Activities | typeof PUBLISH_ACTIVITY; orderSteps: string[] }
> = {
  reserve: { activityType: 'reserveInventory', orderSteps: ['reserving'] },
  charge: { activityType: 'chargePayment', orderSteps: ['charging'] },
  email: { activityType: 'sendEmail', orderSteps: ['emailing'] },
  announce: { activityType: PUBLISH_ACTIVITY, orderSteps: ['announce'] },
  refund: { activityType: 'refundPayment', orderSteps: ['compensating'] },
  release: { activityType: 'releaseInventory', orderSteps: ['compensating'] },
};

/** Step of an order whose step retries a transient cause (issue 15's contract). */
export const WAITING_STEP = 'waiting';

/** What pause/resume act on: one step's activity, or (`--all`) every pending activity. */
export interface PauseSelection {
  /** Undefined with `--all`: any activity type. */
  step?: StepName;
  /** Another domain's `--activity`: its activity type by name (orders name a step instead). */
  activityType?: string;
  /** Another domain's workflow type (default: the order's fulfillment). */
  workflowType?: string;
  prefix?: string;
  startedBefore?: Date;
}

/** The visibility query of the running orders that may have the selected activity pending. */
export function buildPauseQuery(sel: PauseSelection): string {
  // Another domain's sagas write Step only where queried: its running steps have no value.
  const running = sel.workflowType
    ? []
    : sel.step
      ? STEP_ACTIVITY[sel.step].orderSteps
      : Object.values(STEP_ACTIVITY).flatMap((s) => s.orderSteps);
  const steps = [...new Set([...running, WAITING_STEP])];
  return visibility.allOf(
    visibility.equals(
      SYSTEM_ATTRIBUTE.workflowType,
      sel.workflowType ?? WORKFLOW_TYPE.orderFulfillment,
    ),
    visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, 'Running'),
    // Orders started by current code write Step only when parked, waiting or finished
    // (a visibility write per step costs the server; issue 18), so a running step is no value
    // at all; older runs still write it. Each run's pending activities decide in the end.
    visibility.anyOf(
      visibility.oneOf(SEARCH_ATTRIBUTE.step, steps),
      visibility.isUnset(SEARCH_ATTRIBUTE.step),
    ),
    sel.prefix && visibility.startsWith(SEARCH_ATTRIBUTE.entityId, sel.prefix),
    sel.startedBefore && visibility.before(SYSTEM_ATTRIBUTE.startTime, sel.startedBefore),
  );
}

/**
 * Reads the options pause and resume share; UsageError for anything malformed. With `domain`
 * (any registered domain but orders) `--activity NAME` replaces `--step`: the CLI knows an
 * order's steps' activities, not another saga's step table.
 */
export function parsePauseArgs(argv: string[], verb: 'pause' | 'resume', domain?: OpsDomain) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      step: { type: 'string' },
      activity: { type: 'string' },
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
  const prefix = values.prefix;
  checkPrefix(prefix);
  const olderThan = values['older-than'];
  const selection: PauseSelection = {
    ...(domain
      ? domainPauseTarget(values, domain)
      : orderPauseTarget(values.step, values.activity, values.all)),
    ...(prefix !== undefined ? { prefix } : {}),
    ...(olderThan !== undefined
      ? { startedBefore: new Date(Date.now() - parseDuration(olderThan, '--older-than')) }
      : {}),
  };
  return {
    values,
    selection,
    limit: parsePositiveInt(values.limit, '--limit', 10_000),
    action: operatorActionOf({ by: values.by, reason: values.reason }),
  };
}

/** Orders: `--step reserve|charge|email|refund|release | --all`. */
function orderPauseTarget(
  step: string | undefined,
  activity: string | undefined,
  all: boolean | undefined,
): Pick<PauseSelection, 'step'> {
  if (activity !== undefined)
    throw new UsageError(`orders name a step: --step ${PARKED_STEPS.join('|')}`);
  if ((step === undefined) === !all) {
    throw new UsageError(
      `give exactly one of --step ${PARKED_STEPS.join('|')} or --all (every step)`,
    );
  }
  if (step !== undefined && !(step in STEP_ACTIVITY)) {
    throw new UsageError(`--step must be one of ${PARKED_STEPS.join(', ')}, got ${step}`);
  }
  return step !== undefined ? { step: step as StepName } : {};
}

/** Another domain: `--activity NAME | --all` (its step table is its workflow code's). */
function domainPauseTarget(
  values: { step?: string; activity?: string; all?: boolean },
  domain: OpsDomain,
): Pick<PauseSelection, 'activityType' | 'workflowType'> {
  if (values.step !== undefined)
    throw new UsageError(
      `${domain.name} pause|resume take --activity NAME (one of the domain's activities) or --all, not --step`,
    );
  const activity = values.activity;
  if ((activity === undefined) === !values.all)
    throw new UsageError('give exactly one of --activity NAME or --all (every activity)');
  if (activity === '') throw new UsageError('--activity may not be empty');
  return {
    workflowType: domain.workflowType,
    ...(activity !== undefined ? { activityType: activity } : {}),
  };
}

/** The activity type a pause selects (undefined: every one). */
export function activityTypeOf(sel: PauseSelection): string | undefined {
  return sel.step ? STEP_ACTIVITY[sel.step].activityType : sel.activityType;
}

/** A pending activity of a selected order. */
export interface PendingActivity {
  orderId: string;
  workflowId: string;
  runId: string;
  activityId: string;
  activityType: string;
  paused: boolean;
  attempt: number;
}

/** The selected orders' pending activities of the selected type (any type with `--all`). */
export async function findPendingActivities(client: Client, sel: PauseSelection, limit: number) {
  const query = buildPauseQuery(sel);
  const infos = await listExecutions(client, query, limit);
  const type = activityTypeOf(sel);
  const found: PendingActivity[] = [];
  await forEachLimited(infos, 8, async (info) => {
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
        orderId: info.typedSearchAttributes.get(SEARCH_ATTRIBUTE.entityId) ?? info.workflowId,
        workflowId: info.workflowId,
        runId: info.runId,
        activityId: a.activityId ?? '',
        activityType,
        paused: a.paused ?? false,
        attempt: a.attempt ?? 0,
      });
    }
  });
  return { query, orders: infos.length, activities: found };
}
