/**
 * The operator actions an order received, for `orders show`: the workflow's own record
 * (`OrderStatus.operatorActions`, live from the status query) when it has one, else read
 * from the run's history, where every retryStep/resolveStep/cancelOrder signal is kept with
 * its payload ({ by, reason, at }) and the sender's identity, and every Temporal reset as the
 * workflow task it failed (cause RESET_WORKFLOW, the operator's reason, the base run). The
 * history answers for closed runs, with no worker, and for workflows built before they
 * recorded actions.
 */
import type { Client, WorkflowHandle } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { temporal } from '@temporalio/proto';
import { tsToDate } from '@temporalio/common/lib/time';
import {
  cancelOrderSignal,
  resolveStepSignal,
  retryStepSignal,
  type RecordedOperatorAction,
} from '../domains/orders/workflows/order-definitions';
import { resolveStepUpdate, retryStepUpdate } from '../workflows/saga-status';

/** An operator action as the workflow records it, and where `orders show` read it. */
export type RecordedAction = RecordedOperatorAction & {
  /** Where it was read: the workflow's status or the run's history. */
  source?: 'status' | 'history';
};

const RESET_CAUSE =
  temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW;

/**
 * The action each operator signal or update records; `cancel`: the domain's cancel signal. An
 * update the run rejected left no event, so every update in the history was taken.
 */
const actionsOfSignals = (cancel: string): Record<string, RecordedOperatorAction['action']> => ({
  [retryStepSignal.name]: 'retry',
  [resolveStepSignal.name]: 'resolve',
  [retryStepUpdate.name]: 'retry',
  [resolveStepUpdate.name]: 'resolve',
  [cancel]: 'cancel',
});

/** The workflow's own record, when its status has one (a pre-contract workflow's has none). */
export function operatorActionsOfStatus(status: object | undefined): RecordedAction[] | undefined {
  const actions = (status as { operatorActions?: unknown } | undefined)?.operatorActions;
  if (!Array.isArray(actions)) return undefined;
  return (actions as RecordedAction[]).map((a) => ({ ...a, source: 'status' as const }));
}

/** The operator signals of a history, decoded with the client's data converter. */
export async function operatorActionsOfHistory(
  client: Client,
  events: temporal.api.history.v1.IHistoryEvent[],
  cancel: string = cancelOrderSignal.name,
): Promise<RecordedAction[]> {
  const ACTION_OF_SIGNAL = actionsOfSignals(cancel);
  const out: RecordedAction[] = [];
  for (const e of events) {
    const failed = e.workflowTaskFailedEventAttributes;
    if (failed?.cause === RESET_CAUSE) {
      // A reset repeats the steps after its point with the order's keys: an operator action.
      out.push({
        action: 'reset',
        by: failed.identity || 'unknown',
        reason: `${failed.failure?.message || 'no reason given'} (run ${failed.newRunId ?? '?'} from ${failed.baseRunId ?? '?'})`,
        at: e.eventTime ? tsToDate(e.eventTime).toISOString() : '',
        source: 'history',
      });
      continue;
    }
    const signaled = e.workflowExecutionSignaledEventAttributes;
    const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    const name = signaled?.signalName ?? update?.name ?? '';
    const action = ACTION_OF_SIGNAL[name];
    if (!action) continue;
    const [payload] = await decodeArrayFromPayloads(
      client.options.loadedDataConverter,
      (signaled?.input ?? update?.args)?.payloads,
    ).catch(() => [undefined]);
    const identity =
      signaled?.identity ??
      e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.identity;
    const p = (payload ?? {}) as { by?: unknown; reason?: unknown; at?: unknown };
    const eventTime = e.eventTime ? tsToDate(e.eventTime).toISOString() : '';
    out.push({
      action,
      // A sender from before the payload: the client identity the server recorded.
      by: typeof p.by === 'string' ? p.by : identity || 'unknown',
      ...(typeof p.reason === 'string' ? { reason: p.reason } : {}),
      at: typeof p.at === 'string' ? p.at : eventTime,
      source: 'history',
    });
  }
  return out;
}

/** The status's record when present, else the history's; an error text if neither answers. */
export async function readOperatorActions(
  client: Client,
  handle: WorkflowHandle,
  status: object | undefined,
  cancel: string = cancelOrderSignal.name,
): Promise<RecordedAction[] | { error: string }> {
  const recorded = operatorActionsOfStatus(status);
  if (recorded) return recorded;
  try {
    const history = await handle.fetchHistory();
    return await operatorActionsOfHistory(client, history.events ?? [], cancel);
  } catch (err) {
    return { error: `history unreadable: ${(err as Error).message}` };
  }
}

/** ` of charge (key …)`: the step a retry or resolve acted on; a retry repeats its effect. */
function stepOfAction(a: RecordedAction): string {
  if (!a.step) return '';
  const again = a.action === 'retry' ? '; its effect runs again under that key' : '';
  return ` of ${a.step} (key ${a.key ?? '?'}${again})`;
}

/** `operator action:` lines of `orders show`. */
export function operatorActionLines(
  actions: RecordedAction[] | { error: string },
): Array<[string, string]> {
  if ('error' in actions) return [['operator actions', actions.error]];
  return actions.map((a) => [
    'operator action',
    `${a.at} ${a.action}${stepOfAction(a)} by ${a.by}${a.reason ? `: ${a.reason}` : ''}`,
  ]);
}
