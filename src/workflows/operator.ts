// The operator's side of a saga run: the status query, the three operator signals and the
// audit of every action received (SagaStatus.operatorActions), a Temporal reset and a Temporal
// cancellation included. Workflow code: in-memory status only, no commands.
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
import { targetsOf, type Stalls } from './stalls';

/** The signal and query a saga answers to (a domain may name its own). */
export interface OperatorChannels {
  cancel: SignalDefinition<[CancelRequest]>;
  status: QueryDefinition<SagaStatus>;
}

/** Who a cancellation through Temporal itself is recorded as (its history says who). */
export const TEMPORAL_CANCEL = {
  by: 'Temporal cancellation (Web UI, CLI or batch; who and why: the run history)',
  reason: 'cancellation requested through Temporal',
} as const;

/**
 * Installs the query and signal handlers of a run. Every operator action goes into the status
 * (and thus `show`), acted on or not; a retry or resolve names the parked or waiting step and
 * its key, because a retry repeats that effect. A Temporal reset keeps the first run's ID (so
 * the claim's owner stays the owner) but runs the steps after the reset point again: it is
 * recorded too, as soon as the reset run starts. Temporal's own cancellation is the saga's
 * cancellation, recorded like the signal.
 */
export function installOperatorHandlers(
  runtime: SagaRuntime,
  channels: OperatorChannels,
  status: SagaStatus,
  stalls: Stalls,
  startCancelled?: CancelRequest,
): void {
  const record = (
    action: RecordedOperatorAction['action'],
    from?: Partial<OperatorAction>,
    step?: string,
  ): RecordedOperatorAction => {
    const entry: RecordedOperatorAction = {
      action,
      by: from?.by ?? 'unknown (sender predates operator records)',
      at: from?.at ?? new Date(runtime.now()).toISOString(),
    };
    if (from?.reason !== undefined) entry.reason = from.reason;
    const stalled = step ?? status.parked?.step ?? status.waiting?.step;
    if (stalled && (action === 'retry' || action === 'resolve')) {
      entry.step = stalled;
      entry.key = status.keys[stalled];
    }
    (status.operatorActions ??= []).push(entry);
    return entry;
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
  const cancel = (request: CancelRequest) => {
    record('cancel', request);
    // Repeated cancellations act once: only the first is recorded.
    status.cancellation ??= {
      reason: request.reason,
      requestedAt: new Date(runtime.now()).toISOString(),
    };
  };
  runtime.onQuery(channels.status, () => status);
  runtime.onSignal(channels.cancel, cancel);
  // A run started to compensate a closed one is cancelled from its first moment.
  if (startCancelled) cancel(startCancelled);
  runtime.onCancelRequested(() => {
    cancel(TEMPORAL_CANCEL);
    status.cancellation!.byTemporal = true;
  });
  const act = (action: 'retry' | 'resolve', request?: OperatorAction) => {
    const { steps, refused } = targetsOf(stalls, action, request?.step);
    const entry = record(action, request, steps.length === 1 ? steps[0] : request?.step);
    if (refused !== undefined && stalls.current.size > 0) entry.refused = refused;
    for (const step of steps)
      stalls.pending.set(step, {
        action,
        ...(action === 'resolve' && request?.result !== undefined
          ? { result: request.result }
          : {}),
      });
  };
  runtime.onSignal(retryStepSignal, (request?: OperatorAction) => act('retry', request));
  runtime.onSignal(resolveStepSignal, (request?: OperatorAction) => act('resolve', request));
}
