/**
 * Which orders a bulk command (`orders retry|cancel --all`, `orders pause|resume`) acts on:
 * a visibility query over the Step search attribute, narrowed by the parked step, which
 * visibility cannot query (it lives in the workflow memo `attention` and the status query).
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import type { OrderStatus, StepName } from '../domains/orders/workflows/order-definitions';
import { forEachLimited } from '../util/run-limited';
import { buildOrderQuery, buildRunQuery, listExecutions } from './order-lookup';
import { parseDuration, UsageError } from './output';

/** The steps an order can be parked at (`--parked-at`), as the workflow names them. */
export const PARKED_STEPS: readonly StepName[] = [
  'reserve',
  'charge',
  'email',
  'refund',
  'release',
];

/** Options every bulk command accepts, as parseArgs declares them. */
export const SELECTION_OPTIONS = {
  step: { type: 'string' },
  'parked-at': { type: 'string' },
  'older-than': { type: 'string' },
  prefix: { type: 'string' },
  limit: { type: 'string' },
} as const;

/** What a bulk command selects. */
export interface BulkSelection {
  /** Step value. Default: `needs_attention` (parked). */
  step: string;
  /** Only orders parked at this step (needs the memo or a status query per order). */
  /** A step name of the domain's saga (orders: one of PARKED_STEPS). */
  parkedAt?: string;
  /** Only orders started before this instant (same meaning as `orders list --older-than`). */
  startedBefore?: Date;
  /** Only orders whose ID starts with this. */
  prefix?: string;
}

/** Refuses an order-ID prefix visibility cannot take as it is. */
export function checkPrefix(prefix: string | undefined): void {
  // A backslash would change what STARTS_WITH means; quotes cannot be escaped.
  if (prefix !== undefined && (prefix === '' || /['"\\]/.test(prefix))) {
    throw new UsageError('--prefix must be non-empty, without quotes or \\');
  }
}

/** Reads the selection options; UsageError for anything malformed. `now` for tests. */
export function parseSelection(
  values: { step?: string; 'parked-at'?: string; 'older-than'?: string; prefix?: string },
  now = Date.now(),
  /** The steps `--parked-at` accepts; null: any non-empty name (another domain's own steps). */
  parkedSteps: readonly string[] | null = PARKED_STEPS,
): BulkSelection {
  const parkedAt = values['parked-at'];
  if (parkedAt !== undefined && parkedSteps && !parkedSteps.includes(parkedAt)) {
    throw new UsageError(`--parked-at must be one of ${parkedSteps.join(', ')}, got ${parkedAt}`);
  }
  if (parkedAt === '') throw new UsageError('--parked-at may not be empty');
  const step = values.step ?? 'needs_attention';
  if (parkedAt !== undefined && step !== 'needs_attention') {
    throw new UsageError('--parked-at selects parked orders; it cannot be combined with --step');
  }
  const prefix = values.prefix;
  checkPrefix(prefix);
  const olderThan = values['older-than'];
  return {
    step,
    ...(parkedAt !== undefined ? { parkedAt } : {}),
    ...(olderThan !== undefined
      ? { startedBefore: new Date(now - parseDuration(olderThan, '--older-than')) }
      : {}),
    ...(prefix !== undefined ? { prefix } : {}),
  };
}

/**
 * The visibility query of a selection: running runs only (a signal needs a live run) of the
 * domain's workflow type (default: the order's fulfillment).
 */
export function buildSelectionQuery(selection: BulkSelection, workflowType?: string): string {
  const filter = {
    step: selection.step,
    status: 'running' as const,
    startedBefore: selection.startedBefore,
  };
  return workflowType === undefined
    ? buildOrderQuery({ ...filter, orderIdPrefix: selection.prefix })
    : buildRunQuery(workflowType, { ...filter, entityIdPrefix: selection.prefix });
}

/** How the parked step of an order was learnt. */
export type ParkedStepSource = 'memo' | 'query';

/**
 * The parked step from the workflow memo `attention` (`{ state: 'parked', step, … }`), which
 * visibility returns with every listed execution: free, and answered with no worker running.
 */
export function parkedStepFromMemo(memo: Record<string, unknown> | undefined): string | undefined {
  const attention = memo?.attention as { state?: unknown; step?: unknown } | undefined;
  if (attention?.state !== 'parked' || typeof attention.step !== 'string') return undefined;
  return attention.step;
}

/** One selected order: its run, and where it is parked if that was asked. */
export interface SelectedOrder {
  orderId: string;
  workflowId: string;
  runId: string;
  step?: string;
  parkedAt?: string;
  startTime: string;
}

/** Orders whose parked step could not be learnt (no memo and the status query failed). */
export interface UnknownParkedStep {
  workflowId: string;
  error: string;
}

export interface SelectionResult {
  query: string;
  orders: SelectedOrder[];
  /** With `--parked-at`: how many matched the query but are parked elsewhere. */
  parkedElsewhere: number;
  unknown: UnknownParkedStep[];
}

/** Options of selectOrders. */
export interface SelectOptions {
  /** At most this many executions are read from visibility. */
  limit: number;
  /** Asks a running order's status (a worker must be up); used when the memo has no answer. */
  queryStatus: (
    info: WorkflowExecutionInfo,
  ) => Promise<Pick<OrderStatus, 'parked'> | { error: string }>;
  /** Status queries at once. Default 8. */
  concurrency?: number;
  /** The domain's workflow type. Default: the order's fulfillment. */
  workflowType?: string;
}

/**
 * Runs the selection: the visibility query, then, for `--parked-at`, the parked step of
 * each order from its memo, else from its status query. The result is an explicit list of
 * runs, so the batch acts on exactly the orders the operator confirmed (an order parked
 * after the prompt is not swept in), and the dry run shows exactly what would be signalled.
 */
export async function selectOrders(
  client: Client,
  selection: BulkSelection,
  options: SelectOptions,
): Promise<SelectionResult> {
  const query = buildSelectionQuery(selection, options.workflowType);
  const infos = await listExecutions(client, query, options.limit);
  const orders: SelectedOrder[] = [];
  const unknown: UnknownParkedStep[] = [];
  let parkedElsewhere = 0;
  const toOrder = (info: WorkflowExecutionInfo, parkedAt?: string): SelectedOrder => ({
    orderId: info.typedSearchAttributes.get(SEARCH_ATTRIBUTE.entityId) ?? info.workflowId,
    workflowId: info.workflowId,
    runId: info.runId,
    step: selection.step,
    ...(parkedAt !== undefined ? { parkedAt } : {}),
    startTime: info.startTime.toISOString(),
  });
  if (!selection.parkedAt)
    return { query, orders: infos.map((i) => toOrder(i)), parkedElsewhere, unknown };
  const results: Array<SelectedOrder | undefined> = new Array(infos.length);
  await forEachLimited(infos, options.concurrency ?? 8, async (info, index) => {
    let parkedAt = parkedStepFromMemo(info.memo);
    if (parkedAt === undefined) {
      const status = await options.queryStatus(info);
      if ('error' in status) {
        unknown.push({ workflowId: info.workflowId, error: status.error });
        return;
      }
      parkedAt = status.parked?.step;
    }
    if (parkedAt === selection.parkedAt) results[index] = toOrder(info, parkedAt);
    else parkedElsewhere++;
  });
  for (const r of results) if (r) orders.push(r);
  return { query, orders, parkedElsewhere, unknown };
}
