// One run of a domain's workflow on the engine, its whole lifecycle in one place: one function
// per phase of its state (run-state.ts), each reading and writing that state.
//
//   claiming      the engine claims the entity (unless a step of the body claims)
//   running       the body: steps, waits, children, as the domain wrote it
//   ending        a cancellation, an uncaught business failure, `fail` or an error in the
//                 body: no forward call starts any more, every call in flight is stopped (an
//                 attempt in flight finishes first) and the run waits for each to come back
//   compensating  every call whose effect may exist is undone once, last started first
//   settling      the owner records how the entity ended on its claim (the memory that never
//                 expires); a cancellation while it settles `completed` unwinds instead
//   done          the result; a run cancelled through Temporal closes Canceled, one whose
//                 body threw closes Failed, both after unwinding
//
// The body runs exactly once, on Temporal's own history: nothing is replayed against a journal
// of ours, and the history stays bounded by construction (run-budget.ts). Workflow code.
import { ApplicationFailure, CancelledFailure } from '@temporalio/workflow';
import type { EventWorkflowInput } from '../events/workflow-input';
import { runCall, interruptWanted, type RoundsContext } from './call-rounds';
import { claimFlow, type Other } from './claim-flow';
import { currentDetailsOf, type SagaDisplay } from './details';
import { describeFailure } from './failures';
import { installOperatorHandlers } from './operator';
import { retryRefusal } from './run-budget';
import { NotOwner, RunEnded, RunInterrupted, StepFailure } from './run-errors';
import { startAttributes, stepWriter } from './run-face';
import {
  activeCalls,
  createRunState,
  endRun,
  openCall,
  owedUndos,
  requestCancel,
  shouldStop,
  unwindOrder,
  type Ending,
} from './run-state';
import { stepPrimitive } from './run-step';
import type { RunResult, RunSpec, StackEntry } from './run-types';
import type { SagaRuntime } from './saga-runtime';
import { cancelSignal, statusQuery, type SagaResult, type SagaStatus } from './saga-status';
import type { StepContext } from './saga-types';
import { createStallFace } from './stall-face';
import { keysFor } from './step-key';

export type { RunResult, RunSpec, StackEntry, StepSpec } from './run-types';

/** The failure type a run closes Failed with when its body threw (after unwinding). */
export const RUN_FAILED = 'RunFailed';

/** A run's state, face and primitives; `lifecycle` runs it. */
export function createEntityRun<TData, TExtra extends object>(
  spec: RunSpec<TData, TExtra>,
  input: EventWorkflowInput<TData>,
  runtime: SagaRuntime,
) {
  const data = input.data;
  const kind = spec.entity.kind;
  const entityId = spec.entity.id(data);
  const info = runtime.info();
  const workflowId = info.workflowId;
  // The run as the claim knows it: its chain's first run ID and start, both kept by a reset.
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

  /**
   * After every change of the state (a cancellation, an operator's request, the run ending):
   * each call the state says must stop or give way is interrupted now.
   */
  const react = () => {
    for (const call of state.calls.values())
      if (interruptWanted(call, shouldStop(state, call))) call.interrupt!();
  };
  installOperatorHandlers(
    runtime,
    channels,
    status,
    { state, cancel: (reason) => requestCancel(state, reason), react },
    input.cancel,
  );

  const rounds: RoundsContext = {
    runtime,
    state,
    status,
    face,
    setStep,
    stopped: (call) => shouldStop(state, call),
    retryRefusal: () => retryRefusal(runtime.info().historyLength, owedUndos(state)),
    refuse: (step, reason) => {
      const last = [...(status.operatorActions ?? [])].reverse().find((a) => a.step === step);
      if (last) last.refused = reason;
    },
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
  const base = {
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
    setStep,
    ctxOf,
    summaryOf,
  };

  /** Undoes `entries` in order: each a call of its own, waiting and parking like a step. */
  async function unwind(entries: ReadonlyArray<{ entry: StackEntry; done?: () => void }>) {
    for (const { entry, done } of entries) {
      const record = openCall(state, {
        name: entry.name,
        item: entry.item,
        kind: 'compensation',
        key: entry.key,
      });
      await runCall(rounds, record, { call: entry, running: 'compensating' });
      done?.();
    }
  }
  const claim = claimFlow({
    ...base,
    unwind: (entries) => unwind(entries.map((entry) => ({ entry }))),
  });
  const steps = stepPrimitive({ ...base, claim });

  /** done: the result the workflow returns, and the Step it closes with. */
  function done(step: string, result: SagaResult, extra?: object): RunResult {
    state.phase = 'done';
    status.outcome = result.outcome;
    setStep(step);
    return { ...(spec.result ? spec.result(status) : { entityId }), ...extra, ...result };
  }

  /** settling: the claim records `settled`; false when a cancellation stopped it. */
  async function settling(settled: string): Promise<boolean> {
    state.phase = 'settling';
    state.settling = settled;
    const got = await claim.settle(settled);
    return got.kind !== 'stopped';
  }

  /** compensating: every call whose effect may exist is undone, last started first. */
  async function compensating(ending: Ending): Promise<RunResult> {
    state.phase = 'compensating';
    setStep('compensating');
    if (ending.cause === 'cancel' && !state.claimed) {
      // Cancelled before this run knew it owned the entity: claim it as cancelled, or learn
      // the owner (and end without acting).
      const other = await claim.claimCancelled();
      if (other) return notOwner(other);
    }
    await unwind(
      unwindOrder(state).map((call) => ({
        entry: call.compensation!,
        done: () => (call.compensated = true),
      })),
    );
    await settling(ending.outcome);
    const step = ending.cause === 'cancel' ? 'cancelled' : ending.outcome.replace(/-/g, '_');
    return done(step, { outcome: ending.outcome, reason: ending.reason });
  }

  /** Another run owns the entity: end without acting (or compensate for a closed owner). */
  function notOwner(other: Other): Promise<RunResult> {
    return claim.endAsNotOwner(other, (result) => done(result.step, result.result));
  }

  /**
   * The run: claiming, running, then ending and compensating or settling, as the state says.
   * Every phase but `running` is the engine's; the body never sees them.
   */
  async function lifecycle(body: () => Promise<object | void>): Promise<RunResult> {
    let ended: { extra?: object } | { err: unknown };
    try {
      await claim.claimFirst();
      if (state.phase === 'claiming') state.phase = 'running';
      // Cancelled while the claim was made: the body never starts.
      if (state.phase !== 'running') throw new RunInterrupted('cancelled');
      ended = { extra: (await body()) ?? undefined };
    } catch (err) {
      ended = { err };
    }
    if ('err' in ended) {
      const err = ended.err;
      if (err instanceof StepFailure)
        endRun(state, {
          outcome: err.outcome,
          reason: `${err.step}: ${err.reason}`,
          cause: 'failure',
        });
      else if (err instanceof RunEnded)
        endRun(state, { outcome: err.outcome, reason: err.reason, cause: 'failure' });
      // NotOwner and RunInterrupted follow an ending the state already holds.
      else if (!(err instanceof RunInterrupted || err instanceof NotOwner) || !state.ending)
        endRun(state, { outcome: 'failed', reason: describeFailure(err), cause: 'error' });
    }
    // ending: nothing goes forward now; every call started comes back first.
    react();
    await runtime.condition(() => activeCalls(state) === 0);
    // Whatever the body did with the NotOwner it met, this run acts on nothing more.
    if (state.otherOwner) return notOwner(state.otherOwner);
    // A cancellation while the settlement of `completed` is in flight stops it, or, when its
    // attempt wrote it anyway, arrives before the run closes: either way the run unwinds and
    // settles `cancelled` over it.
    if (!state.ending && (await settling('completed')) && !state.ending)
      return done(
        'completed',
        { outcome: 'completed' },
        'extra' in ended ? ended.extra : undefined,
      );
    return compensating(state.ending!);
  }

  return { ...base, claim, step: steps.step, react, lifecycle };
}

export type EntityRun = ReturnType<typeof createEntityRun<unknown, object>>;

/**
 * One run, shielded from Temporal's cancellation (which the run notices and unwinds for
 * itself). A run cancelled through Temporal closes as Canceled once it has compensated; one
 * whose body threw closes Failed once it has compensated.
 */
export async function runEntity<TData, TExtra extends object>(
  spec: RunSpec<TData, TExtra>,
  input: EventWorkflowInput<TData>,
  runtime: SagaRuntime,
  body: (run: ReturnType<typeof createEntityRun<TData, TExtra>>) => Promise<object | void>,
): Promise<RunResult> {
  const run = createEntityRun(spec, input, runtime);
  const result = await runtime.shielded(() => run.lifecycle(() => body(run)));
  const undone = run.status.recoveryPoints.map((p) => p.step).join(', ') || 'nothing was done';
  if (run.status.cancellation?.byTemporal && result.outcome === 'cancelled')
    throw new CancelledFailure(`cancelled through Temporal and compensated: ${undone}`);
  if (run.state.ending?.cause === 'error')
    throw ApplicationFailure.create({
      type: RUN_FAILED,
      nonRetryable: true,
      message: `${result.reason ?? 'the body threw'} (compensated: ${undone})`,
    });
  return result;
}
