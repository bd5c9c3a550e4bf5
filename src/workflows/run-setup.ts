// What one run is made of before it does anything: its state (run-state.ts), its status and
// face in the Web UI, its operator handlers, its budget (run-budget.ts) and pace (run-pace.ts),
// and the context each call of its rounds gets. A run resumed at a checkpoint starts from what
// its previous run carried (run-checkpoint.ts). Workflow code.
import type { RunInput } from './run-checkpoint';
import { interruptWanted, type RoundsContext } from './call-rounds';
import { currentDetailsOf, type SagaDisplay } from './details';
import { installOperatorHandlers } from './operator';
import { restoreRun } from './run-checkpoint';
import { callReserve, createBudget, HISTORY_BUDGET } from './run-budget';
import { startAttributes, stepWriter } from './run-face';
import { createPace } from './run-pace';
import { reservedOf } from './run-reserve';
import { createRunState, endRun, requestCancel, shouldStop } from './run-state';
import type { RunSpec } from './run-types';
import type { SagaRuntime } from './saga-runtime';
import { cancelSignal, statusQuery, type SagaStatus } from './saga-status';
import type { StepContext } from './saga-types';
import { createStallFace } from './stall-face';
import { keysFor } from './step-key';

export function setUpRun<TData, TExtra extends object>(
  spec: RunSpec<TData, TExtra>,
  input: RunInput<TData>,
  runtime: SagaRuntime,
) {
  const data = input.data;
  const kind = spec.entity.kind;
  const entityId = spec.entity.id(data);
  const info = runtime.info();
  const workflowId = info.workflowId;
  // The run as the claim knows it: its chain's first run ID and start, both kept by a reset
  // and by a checkpoint's continue-as-new.
  const claimant = {
    workflowId,
    runId: info.firstExecutionRunId,
    startedAt: info.startTime.toISOString(),
    fingerprint: input.event.fingerprint,
  };
  const keys = keysFor(kind, entityId, spec.keyNames);
  const state = createRunState();
  const status = {
    entityId,
    ...spec.status?.(data),
    step: 'received',
    recoveryPoints: [],
    keys: { ...keys },
  } as SagaStatus & TExtra;
  if (input.resume) restoreRun(state, status, input.resume);
  const display: SagaDisplay = {
    entity: kind,
    cli: spec.cli ?? spec.domain,
    cancelSignal: (spec.channels?.cancel ?? cancelSignal).name,
    counterpart: (step) => spec.counterpart?.[step.split(':')[0]!] ?? `the ${step} call`,
  };
  const channels = {
    cancel: spec.channels?.cancel ?? cancelSignal,
    status: spec.channels?.status ?? statusQuery,
  };
  const writer = stepWriter(spec, runtime, () =>
    runtime.setCurrentDetails(currentDetailsOf(display, status)),
  )(status);
  const setStep = writer.setStep;
  startAttributes(spec, runtime, input, entityId);
  setStep(status.step);
  const face = createStallFace({ runtime, display, status, state, setStep });
  const budget = createBudget(
    () => runtime.info(),
    () => reservedOf(state),
  );
  const pace = createPace(runtime);

  /**
   * After every change of the state (a cancellation, an operator's request, a signal, the run
   * ending): a history that what the run cannot refuse pushed to its last line ends the run
   * (it unwinds while there is room), then each call the state says must stop or give way is
   * interrupted now.
   */
  const react = () => {
    const reason = budget.lastLine();
    // Going forward, the run ends and unwinds; unwinding, the unwind goes on in a fresh run.
    if (reason !== undefined && (state.phase === 'claiming' || state.phase === 'running'))
      endRun(state, { outcome: HISTORY_BUDGET, reason, cause: 'failure' });
    else if (reason !== undefined && state.phase !== 'done') state.movingOn = true;
    for (const call of state.calls.values())
      if (interruptWanted(call, shouldStop(state, call))) call.interrupt!();
  };
  installOperatorHandlers(
    runtime,
    channels,
    status,
    {
      state,
      cancel: (reason) => requestCancel(state, reason),
      react,
      retryRefusal: (call) => budget.retryRefusal(callReserve(call.inputBytes ?? 0)),
    },
    input.cancel,
  );

  const rounds: RoundsContext = {
    runtime,
    state,
    status,
    face,
    setStep,
    stopped: (call) => shouldStop(state, call),
    retryRefusal: (call) => budget.retryRefusal(callReserve(call.inputBytes ?? 0)),
    refuse: (step, reason) => {
      const last = [...(status.operatorActions ?? [])].reverse().find((a) => a.step === step);
      if (last) last.refused = reason;
    },
    admit: (bytes, stopped) => pace.admit(bytes, stopped),
  };
  const ctxOf = (key: string, onBehalfOf?: StepContext<TData>['onBehalfOf']) =>
    ({
      data,
      event: input.event,
      entityId,
      key,
      keys,
      workflowId,
      claimant,
      ...(onBehalfOf ? { onBehalfOf } : {}),
    }) as StepContext<TData>;
  const summaryOf = (name: string, key: string) => `${name} ${kind} ${entityId} · ${key}`;
  return {
    spec,
    input,
    runtime,
    data,
    kind,
    entityId,
    workflowId,
    claimant,
    keys,
    status,
    display,
    state,
    rounds,
    channels,
    face,
    budget,
    setStep,
    react,
    ctxOf,
    summaryOf,
  };
}

export type RunSetup = ReturnType<typeof setUpRun<unknown, object>>;
