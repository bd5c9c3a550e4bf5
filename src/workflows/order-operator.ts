// The operator's side of an order run: the status query, the three operator signals and the
// audit of every action received (OrderStatus.operatorActions), a Temporal reset included.
// Workflow code: in-memory status only, no commands.
import { setHandler, workflowInfo } from '@temporalio/workflow';
import {
  cancelOrderSignal,
  orderStatusQuery,
  resolveStepSignal,
  retryStepSignal,
  type OperatorAction,
  type OrderStatus,
  type RecordedOperatorAction,
} from './order-definitions';
import type { StepRunnerContext } from './order-step-runner';

/**
 * Installs the query and signal handlers of an order run. Every operator action goes into the
 * status (and thus `orders show`), acted on or not; a retry or resolve names the parked or
 * waiting step and its key, because a retry repeats that effect. A Temporal reset keeps the
 * first run's ID (so the claim's owner stays the owner) but runs the steps after the reset
 * point again: it is recorded too, as soon as the reset run starts.
 */
export function installOperatorHandlers(
  status: OrderStatus,
  pending: StepRunnerContext['pending'],
): void {
  const record = (action: RecordedOperatorAction['action'], from?: Partial<OperatorAction>) => {
    const entry: RecordedOperatorAction = {
      action,
      by: from?.by ?? 'unknown (sender predates operator records)',
      at: from?.at ?? new Date().toISOString(),
    };
    if (from?.reason !== undefined) entry.reason = from.reason;
    const stalled = status.parked?.step ?? status.waiting?.step;
    if (stalled && (action === 'retry' || action === 'resolve')) {
      entry.step = stalled;
      entry.key = status.keys[stalled];
    }
    (status.operatorActions ??= []).push(entry);
  };
  const info = workflowInfo();
  // Only a reset gives a run another ID than the one its start event recorded (retries and
  // continue-as-new start with their own).
  if (info.runId !== info.originalExecutionRunId) {
    record('reset', {
      by: 'Temporal reset (who and why: the run history)',
      at: info.runStartTime.toISOString(),
      reason: `run ${info.runId} reset from run ${info.originalExecutionRunId}; steps after the reset point run again with the order's keys`,
    });
  }
  setHandler(orderStatusQuery, () => status);
  setHandler(cancelOrderSignal, (request) => {
    record('cancel', request);
    // Repeated cancellations act once: only the first is recorded.
    status.cancellation ??= { reason: request.reason, requestedAt: new Date().toISOString() };
  });
  setHandler(retryStepSignal, (action?: OperatorAction) => {
    record('retry', action);
    if (status.parked || status.waiting) pending.action = 'retry';
  });
  setHandler(resolveStepSignal, (action?: OperatorAction) => {
    record('resolve', action);
    if (status.parked || status.waiting) pending.action = 'resolve';
  });
}
