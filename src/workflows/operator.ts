// The operator's side of a saga run: the status query, the three operator signals and the
// audit of every action received (SagaStatus.operatorActions), a Temporal reset included.
// Workflow code: in-memory status only, no commands.
import type { QueryDefinition, SignalDefinition } from '@temporalio/workflow';
import type { SagaRuntime } from './saga-runtime';
import {
  resolveStepSignal,
  retryStepSignal,
  type CancelRequest,
  type OperatorAction,
  type RecordedOperatorAction,
  type SagaStatus,
} from './saga-status';
import type { StepRunnerContext } from './step-runner';

/** The signal and query a saga answers to (a domain may name its own). */
export interface OperatorChannels {
  cancel: SignalDefinition<[CancelRequest]>;
  status: QueryDefinition<SagaStatus>;
}

/**
 * Installs the query and signal handlers of a run. Every operator action goes into the status
 * (and thus `show`), acted on or not; a retry or resolve names the parked or waiting step and
 * its key, because a retry repeats that effect. A Temporal reset keeps the first run's ID (so
 * the claim's owner stays the owner) but runs the steps after the reset point again: it is
 * recorded too, as soon as the reset run starts.
 */
export function installOperatorHandlers(
  runtime: SagaRuntime,
  channels: OperatorChannels,
  status: SagaStatus,
  pending: StepRunnerContext['pending'],
  view: (status: SagaStatus) => SagaStatus = (s) => s,
): void {
  const record = (action: RecordedOperatorAction['action'], from?: Partial<OperatorAction>) => {
    const entry: RecordedOperatorAction = {
      action,
      by: from?.by ?? 'unknown (sender predates operator records)',
      at: from?.at ?? new Date(runtime.now()).toISOString(),
    };
    if (from?.reason !== undefined) entry.reason = from.reason;
    const stalled = status.parked?.step ?? status.waiting?.step;
    if (stalled && (action === 'retry' || action === 'resolve')) {
      entry.step = stalled;
      entry.key = status.keys[stalled];
    }
    (status.operatorActions ??= []).push(entry);
  };
  const info = runtime.info();
  // Only a reset gives a run another ID than the one its start event recorded (retries and
  // continue-as-new start with their own).
  if (info.runId !== info.originalExecutionRunId) {
    record('reset', {
      by: 'Temporal reset (who and why: the run history)',
      at: info.runStartTime.toISOString(),
      reason: `run ${info.runId} reset from run ${info.originalExecutionRunId}; steps after the reset point run again with the entity's keys`,
    });
  }
  runtime.onQuery(channels.status, () => view(status));
  runtime.onSignal(channels.cancel, (request: CancelRequest) => {
    record('cancel', request);
    // Repeated cancellations act once: only the first is recorded.
    status.cancellation ??= {
      reason: request.reason,
      requestedAt: new Date(runtime.now()).toISOString(),
    };
  });
  runtime.onSignal(retryStepSignal, (action?: OperatorAction) => {
    record('retry', action);
    if (status.parked || status.waiting) pending.action = 'retry';
  });
  runtime.onSignal(resolveStepSignal, (action?: OperatorAction) => {
    record('resolve', action);
    if (status.parked || status.waiting) pending.action = 'resolve';
  });
}
