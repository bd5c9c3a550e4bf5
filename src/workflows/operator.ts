// The operator's side of a run: the status query, the three operator signals and the audit of
// every action received (SagaStatus.operatorActions), a Temporal reset and a Temporal
// cancellation included. A request lands on the call it names (run-state.ts); the run then
// reacts at once (a waiting round gives way). Workflow code.
import type { QueryDefinition, SignalDefinition } from '@temporalio/workflow';
import type { SagaRuntime } from './saga-runtime';
import {
  resolveStepSignal,
  resolveStepUpdate,
  retryStepSignal,
  retryStepUpdate,
  type CancelRequest,
  type OperatorAction,
  type RecordedOperatorAction,
  type SagaStatus,
} from './saga-status';
import { stalledCalls, targetsOf, type CallRecord, type RunState } from './run-state';

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

/** What the handlers change in the run, and how it reacts at once. */
export interface OperatorHooks {
  state: RunState;
  /** A cancellation arrived (the first one acts; later ones are only recorded). */
  cancel(reason: string): void;
  /** Something changed: the run stops or interrupts the calls it must (run-setup.ts). */
  react(): void;
  /** Why a retry of `call` would be refused now (the history budget), or undefined. */
  retryRefusal(call: CallRecord): string | undefined;
}

/**
 * Installs the query and signal handlers of a run. Every operator action goes into the status
 * (and thus `show`), acted on or not; a retry or resolve names the parked or waiting call and
 * its key, because a retry repeats that effect. A Temporal reset keeps the first run's ID (so
 * the claim's owner stays the owner) but runs the steps after the reset point again: it is
 * recorded too, as soon as the reset run starts. Temporal's own cancellation is the run's
 * cancellation, recorded like the signal.
 */
export function installOperatorHandlers(
  runtime: SagaRuntime,
  channels: OperatorChannels,
  status: SagaStatus,
  hooks: OperatorHooks,
  startCancelled?: CancelRequest,
): void {
  const { state } = hooks;
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
      entry.key = state.calls.get(stalled)?.key ?? status.keys[stalled];
    }
    (status.operatorActions ??= []).push(entry);
    return entry;
  };
  const info = runtime.info();
  // Only a reset gives a run another ID than the one its start event recorded (retries start
  // with their own).
  if (info.runId !== info.originalExecutionRunId) {
    record('reset', {
      by: 'Temporal reset (who and why: the run history)',
      at: info.runStartTime.toISOString(),
      reason: `run ${info.runId} reset from run ${info.originalExecutionRunId}; steps after the reset point run again with the entity's keys`,
    });
  }
  const cancel = (request: CancelRequest, byTemporal = false) => {
    record('cancel', request);
    // Repeated cancellations act once: only the first is recorded as the run's.
    if (!status.cancellation) {
      status.cancellation = {
        reason: request.reason,
        requestedAt: new Date(runtime.now()).toISOString(),
      };
      hooks.cancel(request.reason);
    }
    // Temporal's cancel after the signal's still closes the run Canceled once it compensated.
    if (byTemporal) status.cancellation.byTemporal = true;
    hooks.react();
  };
  runtime.onQuery(channels.status, () => status);
  runtime.onSignal(channels.cancel, (request: CancelRequest) => cancel(request));
  // A run started to compensate a closed one is cancelled from its first moment.
  if (startCancelled) cancel(startCancelled);
  runtime.onCancelRequested(() => cancel(TEMPORAL_CANCEL, true));
  const act = (action: 'retry' | 'resolve', request?: OperatorAction) => {
    const { calls, refused } = targetsOf(state, action, request?.step);
    const entry = record(action, request, calls.length === 1 ? calls[0]!.id : request?.step);
    if (refused !== undefined && stalledCalls(state).length > 0) entry.refused = refused;
    for (const call of calls)
      call.request = {
        action,
        ...(action === 'resolve' && request?.result !== undefined
          ? { result: request.result }
          : {}),
      };
    hooks.react();
  };
  runtime.onSignal(retryStepSignal, (request?: OperatorAction) => act('retry', request));
  runtime.onSignal(resolveStepSignal, (request?: OperatorAction) => act('resolve', request));
  // The same requests as updates: what would be refused is rejected before it is written.
  const check = (action: 'retry' | 'resolve', request?: OperatorAction) => {
    const { calls, refused } = targetsOf(state, action, request?.step);
    if (calls.length === 0) throw new Error(refused ?? 'no step is waiting or parked');
    if (action === 'retry')
      for (const call of calls) {
        const no = hooks.retryRefusal(call);
        if (no !== undefined) throw new Error(`${call.id}: ${no}`);
      }
  };
  const reply = (action: 'retry' | 'resolve', request?: OperatorAction) => {
    const { calls } = targetsOf(state, action, request?.step);
    act(action, request);
    return { steps: calls.map((c) => c.id) };
  };
  runtime.onUpdate(
    retryStepUpdate,
    (request?: OperatorAction) => reply('retry', request),
    (request?: OperatorAction) => check('retry', request),
  );
  runtime.onUpdate(
    resolveStepUpdate,
    (request?: OperatorAction) => reply('resolve', request),
    (request?: OperatorAction) => check('resolve', request),
  );
}
