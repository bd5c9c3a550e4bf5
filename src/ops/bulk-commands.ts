/**
 * `orders retry --all` and `orders cancel --all`: one command for hundreds of parked orders,
 * on Temporal's batch machinery (a signal batch over the runs the selection found).
 */
import { parseArgs } from 'node:util';
import { encodeToPayloads } from '@temporalio/common/lib/internal-non-workflow';
import type { Client } from '@temporalio/client';
import { runBatch, type BatchTarget } from './batch-operation';
import { PRIORITY_KEY } from '../temporal/run-priority';
import type { OpsDomain } from './ops-domain';
import {
  PARKED_STEPS,
  parseSelection,
  selectOrders,
  SELECTION_OPTIONS,
  type SelectionResult,
} from './bulk-selection';
import {
  cancelOrderSignal,
  retryStepSignal,
  type CancelOrderRequest,
  type OperatorAction,
} from '../domains/orders/workflows/order-definitions';
import { confirmAction } from './confirm';
import type { OpsContext } from './context';
import { batchReasonOf, operatorActionOf } from './operator-action';
import { queryStatus } from './order-status';
import { EXIT, formatTable, parsePositiveInt, UsageError, type CommandResult } from './output';
import { countSignalOutcomes } from './signal-outcomes';

/** Orders a dry run lists (the count is always complete). */
const PREVIEW_ROWS = 20;
/** Default of `--limit`: how many orders one bulk command reads from visibility. */
const DEFAULT_BULK_LIMIT = 10_000;

/** The options `retry --all` and `cancel --all` share (besides the selection). */
export const ACTION_OPTIONS = {
  all: { type: 'boolean' },
  reason: { type: 'string' },
  by: { type: 'string' },
  yes: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
} as const;

/** The lines a dry run prints: count, the first orders, and what the selection left out. */
export function describeSelection(verb: string, sel: SelectionResult, entity = 'order'): string {
  const shown = sel.orders.slice(0, PREVIEW_ROWS);
  const lines = [`${sel.orders.length} ${entity}(s) would be sent ${verb} · query: ${sel.query}`];
  if (shown.length > 0) {
    lines.push(
      formatTable(
        [entity.toUpperCase(), 'STEP', 'PARKED AT', 'STARTED', 'WORKFLOW'],
        shown.map((o) => [o.orderId, o.step, o.parkedAt, o.startTime, o.workflowId]),
      ),
    );
  }
  if (sel.orders.length > shown.length)
    lines.push(`… and ${sel.orders.length - shown.length} more`);
  if (sel.parkedElsewhere > 0)
    lines.push(`${sel.parkedElsewhere} parked at another step (left out)`);
  if (sel.unknown.length > 0) {
    lines.push(
      `${sel.unknown.length} with an unknown parked step (left out; no memo and no answer to the status query, e.g. ${sel.unknown[0]!.error})`,
    );
  }
  return lines.join('\n');
}

/** The final line of a bulk signal command; the same counts are its JSON. */
export function summaryLine(
  verb: string,
  counts: { selected: number; signalled: number; skipped: number; failed: number },
  jobIds: string[],
): string {
  const skippedWhy = verb === 'cancel' ? 'already cancelled' : 'no longer parked or waiting';
  return (
    `${verb}: ${counts.signalled} signalled, ${counts.skipped} skipped (${skippedWhy}), ${counts.failed} failed` +
    ` of ${counts.selected} selected${jobIds.length ? ` · batch ${jobIds.join(', ')}` : ''}`
  );
}

/** What the priority batch of a bulk retry came to (`priorityKey` set, or why not). */
export interface PriorityChange {
  priorityKey: number;
  changed: number;
  failed: number;
  /** Set when Temporal refused the whole batch (an older server): the retry goes on. */
  error?: string;
}

/**
 * Sets the bulk-retry priority key on every target (Temporal's UpdateWorkflowExecutionOptions,
 * as one batch): the run's tasks from now on, its activities' too, queue behind live events.
 * A refusal of the whole batch is reported, never fatal: the retry itself matters more.
 */
async function lowerPriority(
  client: Client,
  reason: string,
  identity: string,
  targets: BatchTarget[],
): Promise<PriorityChange> {
  const priorityKey = PRIORITY_KEY['bulk-retry'];
  try {
    const jobs = await runBatch(client, {
      verb: 'priority',
      reason,
      targets,
      label: `priority ${priorityKey} for ${targets.length} run(s)`,
      operation: {
        updateWorkflowOptionsOperation: {
          identity,
          workflowExecutionOptions: { priority: { priorityKey } },
          updateMask: { paths: ['priority.priority_key'] },
        },
      },
    });
    return {
      priorityKey,
      changed: jobs.reduce((n, j) => n + j.completed, 0),
      failed: jobs.reduce((n, j) => n + j.failed, 0),
    };
  } catch (err) {
    return { priorityKey, changed: 0, failed: targets.length, error: (err as Error).message };
  }
}

/**
 * `<domain> retry|cancel --all [--step S] [--parked-at STEP] [--older-than D] [--prefix P]
 * [--limit N] [--reason R] [--by B] [--yes] [--dry-run]`. `domain`: whose runs (default the
 * orders; any registered domain's through its workflow type, cancel signal and status query).
 */
export async function signalAll(
  ctx: OpsContext,
  verb: 'retry' | 'cancel',
  argv: string[],
  domain?: OpsDomain,
): Promise<CommandResult> {
  const entity = domain?.entity ?? 'order';
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...SELECTION_OPTIONS, ...ACTION_OPTIONS },
    strict: true,
  });
  if (positionals.length > 0)
    throw new UsageError(`--all takes no ${entity} ID (got ${positionals[0]})`);
  // A domain's own steps are not known here: --parked-at takes any name (none matches: 0 selected).
  const selection = parseSelection(values, Date.now(), domain ? null : PARKED_STEPS);
  if (verb === 'cancel' && !values['dry-run'] && !values.reason?.trim()) {
    throw new UsageError('cancel --all needs --reason (it is recorded with every cancellation)');
  }
  const action = operatorActionOf({ by: values.by, reason: values.reason });
  const limit = parsePositiveInt(values.limit, '--limit', DEFAULT_BULK_LIMIT);
  const client = await ctx.temporal();
  const sel = await selectOrders(client, selection, {
    limit,
    queryStatus: (info) =>
      queryStatus(client.workflow.getHandle(info.workflowId, info.runId), domain?.statusQuery),
    workflowType: domain?.workflowType,
  });
  const preview = sel.orders.slice(0, PREVIEW_ROWS);
  const base = {
    verb,
    query: sel.query,
    selected: sel.orders.length,
    parkedElsewhere: sel.parkedElsewhere,
    unknownParkedStep: sel.unknown,
  };
  if (values['dry-run']) {
    return {
      json: { ...base, dryRun: true, orders: preview },
      human: describeSelection(verb, sel, entity),
    };
  }
  const none = { signalled: 0, skipped: 0, failed: 0 };
  if (sel.orders.length === 0) {
    return {
      json: { ...base, ...none, jobs: [] },
      human: `${summaryLine(verb, { selected: 0, ...none }, [])} · query: ${sel.query}`,
    };
  }
  const confirmed = await confirmAction(
    `${verb} ${sel.orders.length} ${entity}(s) (${sel.query})?`,
    values.yes ?? false,
  );
  if (!confirmed) {
    return {
      json: { ...base, ...none, aborted: true },
      human: 'aborted: nothing sent',
      exitCode: EXIT.failure,
    };
  }
  const reason = batchReasonOf(verb, action);
  // Unique per command: the history tells our signal from anyone else's by it.
  const identity = `onceflow-cli ${verb} ${action.by} ${action.at}`;
  const cancel = domain?.cancelSignal ?? cancelOrderSignal.name;
  const signal = verb === 'retry' ? retryStepSignal.name : cancel;
  const payload: OperatorAction | CancelOrderRequest =
    verb === 'retry' ? action : { reason: action.reason ?? reason, by: action.by, at: action.at };
  const targets = sel.orders.map((o) => ({ workflowId: o.workflowId, runId: o.runId }));
  // A bulk retry goes behind live traffic: the runs' priority key is lowered first, so the
  // tasks the retry schedules queue behind every live event's (docs/operations.md).
  const priority =
    verb === 'retry' ? await lowerPriority(client, reason, identity, targets) : undefined;
  const jobs = await runBatch(client, {
    verb,
    reason,
    targets,
    label: `${verb} ${targets.length} ${entity}(s)`,
    operation: {
      signalOperation: {
        signal,
        identity,
        input: { payloads: await encodeToPayloads(client.options.loadedDataConverter, payload) },
      },
    },
  });
  const { counts, outcomes } = await countSignalOutcomes(
    client,
    targets,
    signal,
    identity,
    8,
    cancel,
  );
  const jobIds = jobs.map((j) => j.jobId);
  return {
    json: {
      ...base,
      ...counts,
      action,
      reason,
      jobs,
      ...(priority ? { priority } : {}),
      orders: sel.orders.map((o) => ({ ...o, outcome: outcomes.get(o.workflowId) })),
    },
    human: summaryLine(verb, { selected: sel.orders.length, ...counts }, jobIds),
    exitCode: counts.failed > 0 ? EXIT.failure : EXIT.ok,
  };
}
