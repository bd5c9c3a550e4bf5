// One run of a domain's workflow on the engine: the entity's claim, the keys, the status and
// its Web UI face, the compensation stack, and the step primitive both forms build on (the
// code-first workflow of define-workflow.ts and the step table of saga.ts). A business
// failure or a cancellation (the saga's signal, or Temporal's own: the Web UI's button, the
// CLI, a batch) unwinds the stack; the claim decides whether this run acts at all, and the
// owner settles it at the end. Workflow code.
import { CancelledFailure } from '@temporalio/workflow';
import type { EventWorkflowInput } from '../events/workflow-input';
import { currentDetailsOf, type SagaDisplay } from './details';
import { businessFailureOf, describeFailure } from './failures';
import { installOperatorHandlers } from './operator';
import { claimFlow } from './claim-flow';
import { NotOwner, RunEnded, RunInterrupted, StepFailure } from './run-errors';
import type { SagaRuntime } from './saga-runtime';
import { cancelSignal, statusQuery, type SagaResult, type SagaStatus } from './saga-status';
import type { StepContext } from './saga-types';
import { createStalls } from './stalls';
import { createStepRunner } from './step-runner';
import { startAttributes, stepWriter } from './run-face';
import { keysFor, stepKey } from './step-key';
import type { RunResult, RunSpec, StackEntry, StepSpec } from './run-types';

export type { RunResult, RunSpec, StackEntry, StepSpec } from './run-types';

/**
 * A run's state and primitives. `setStep` keeps the `Step` search attribute to the values an
 * operator queries (runs recorded before that wrote every step: `compat.onlyQueriedSteps`).
 */
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
  const status = {
    entityId,
    ...spec.status?.(data),
    step: 'received',
    recoveryPoints: [],
    keys,
  } as SagaStatus & TExtra;
  const display: SagaDisplay = {
    entity: kind,
    cli: spec.cli ?? spec.domain,
    cancelSignal: (spec.channels?.cancel ?? cancelSignal).name,
    counterpart: (step) => spec.counterpart?.[step] ?? `the ${step} call`,
  };
  const stalls = createStalls();
  const flags = { compensating: false, ending: false, claimed: false, inflight: 0 };
  const channels = {
    cancel: spec.channels?.cancel ?? cancelSignal,
    status: spec.channels?.status ?? statusQuery,
  };
  installOperatorHandlers(runtime, channels, status, stalls, input.cancel);

  const setStep = stepWriter(spec, runtime, () =>
    runtime.setCurrentDetails(currentDetailsOf(display, status)),
  )(status);
  startAttributes(spec, runtime, input, entityId);
  setStep('received');
  const cancelled = () => !flags.compensating && status.cancellation !== undefined;
  const runStep = createStepRunner({
    runtime,
    display,
    status,
    setStep,
    stalls,
    cancelled,
    refuse: (step, reason) => {
      const last = [...(status.operatorActions ?? [])].reverse().find((a) => a.step === step);
      if (last) last.refused = reason;
    },
    transientWaits: spec.compat?.transientWaits,
  });
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
  const finish = (step: string, result: SagaResult, extra?: object): RunResult => {
    status.outcome = result.outcome;
    setStep(step);
    return { ...(spec.result ? spec.result(status) : { entityId }), ...extra, ...result };
  };

  /** The compensation stack: a step's entry is pushed before it runs (its outcome unknown). */
  const stack: StackEntry[] = [];
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
    flags,
    stack,
    channels,
    setStep,
    cancelled,
    runStep,
    ctxOf,
    summaryOf,
    finish,
  };
  const claim = claimFlow(base);

  /** Stops the body where it is once the run is ending or cancelled. */
  const checkOpen = () => {
    if (flags.ending) throw new RunInterrupted('ending');
    if (cancelled()) throw new RunInterrupted('cancelled');
  };

  /**
   * One step: its compensation pushed, its activity run by the step runner (waits, parks,
   * operator signals), its recovery point; returns the activity's result (or the operator's,
   * when resolved, and says so). Throws StepFailure for a business failure, RunInterrupted when the run
   * was cancelled while it waited, NotOwner when it was the claiming step and another owns.
   */
  async function step(s: StepSpec, args: unknown): Promise<{ value: unknown; resolved: boolean }> {
    checkOpen();
    const key = keys[s.name] ?? stepKey(kind, entityId, s.name);
    const entry = s.compensation?.();
    if (entry) stack.push(entry);
    const failures = Object.keys(s.failures ?? {});
    const claiming = s.name === spec.claim?.step;
    flags.inflight++;
    let outcome;
    try {
      outcome = await runStep({
        step: s.name,
        running: s.running ?? s.name,
        call: () =>
          runtime.execute({
            activity: s.activity,
            input: args,
            retry: s.retry,
            local: s.local?.() ?? false,
            summary: s.summary ?? summaryOf(s.name, key),
            nonRetryable: failures,
            timeouts: s.timeouts,
          }),
        failures,
        ...(claiming ? { verifyResolve: claim.verifyResolve } : {}),
      });
    } catch (err) {
      // A business failure: this step did nothing.
      if (entry) stack.splice(stack.indexOf(entry), 1);
      const type = businessFailureOf(err, failures);
      if (type === undefined) throw err;
      throw new StepFailure(s.name, type, s.failures![type]!, describeFailure(err));
    } finally {
      flags.inflight--;
    }
    if (outcome.kind === 'cancelled') throw new RunInterrupted('cancelled');
    if (claiming) {
      const other = claim.verdictOf(outcome);
      if (other) {
        if (entry) stack.splice(stack.indexOf(entry), 1);
        throw new NotOwner(other);
      }
      flags.claimed = true;
    }
    if (outcome.kind === 'resolved') return { value: outcome.value, resolved: true };
    if (entry && s.compensation) {
      // Its result is known now: the compensation may use it (a refund by the charge's ID).
      stack[stack.indexOf(entry)] = s.compensation(outcome.value);
    }
    return { value: outcome.value, resolved: false };
  }

  /** Undoes, in reverse, every step that did (or may have done) its effect. */
  async function unwind(entries: readonly StackEntry[] = [...stack].reverse()): Promise<void> {
    for (const entry of entries) {
      await runStep({
        step: entry.name,
        running: 'compensating',
        call: () => runtime.execute(entry),
      });
    }
  }

  /** Every step the body started has come back (steps that ran at once included). */
  const settled = async () => {
    if (flags.inflight > 0) await runtime.condition(() => flags.inflight === 0);
  };

  /** Cancelled: claims the entity as cancelled if not yet, unwinds, settles `cancelled`. */
  async function compensate(): Promise<RunResult> {
    flags.compensating = true;
    flags.ending = true;
    await settled();
    if (!flags.claimed) {
      const other = await claim.claimCancelled();
      if (other) return claim.endAsNotOwner(other, unwind);
    }
    await unwind();
    await claim.settle('cancelled');
    return finish('cancelled', { outcome: 'cancelled', reason: status.cancellation?.reason });
  }

  /** Ends the run on what interrupted its body. */
  async function end(err: unknown): Promise<RunResult> {
    flags.ending = true;
    if (err instanceof RunInterrupted && err.why === 'cancelled') return compensate();
    if (err instanceof NotOwner) {
      await settled();
      return claim.endAsNotOwner(err.verdict, unwind);
    }
    if (err instanceof StepFailure || err instanceof RunEnded) {
      flags.compensating = true;
      await settled();
      await unwind();
      await claim.settle(err.outcome);
      return finish(err.outcome.replace(/-/g, '_'), { outcome: err.outcome, reason: err.reason });
    }
    // The run was ending already (another branch's failure or cancellation decides).
    if (err instanceof RunInterrupted && cancelled()) return compensate();
    throw err;
  }

  /** The body returned: completed, unless a cancellation arrived meanwhile. */
  async function complete(extra?: object): Promise<RunResult> {
    await settled();
    // A cancellation that arrived during the last step still compensates: the signal is in
    // history before completion, so it cannot be lost between the last step and the return.
    if (cancelled()) return compensate();
    // So does one that arrived while the settlement was written (compensation settles again).
    if ((await claim.settle('completed')) && cancelled()) return compensate();
    return finish('completed', { outcome: 'completed' }, extra);
  }

  return { ...base, stalls, checkOpen, step, claim, complete, end };
}

export type EntityRun = ReturnType<typeof createEntityRun<unknown, object>>;

/**
 * One run: the claim (the engine's, before the body, unless a step claims), the body, and its
 * ending, all shielded from Temporal's cancellation (which the run notices and unwinds for
 * itself). A run cancelled through Temporal closes as Canceled once it has compensated.
 */
export async function runEntity<TData, TExtra extends object>(
  spec: RunSpec<TData, TExtra>,
  input: EventWorkflowInput<TData>,
  runtime: SagaRuntime,
  body: (run: ReturnType<typeof createEntityRun<TData, TExtra>>) => Promise<object | void>,
): Promise<RunResult> {
  const run = createEntityRun(spec, input, runtime);
  const result = await runtime.shielded(async () => {
    try {
      await run.claim.claimFirst();
      const extra = await body(run);
      return await run.complete(extra ?? undefined);
    } catch (err) {
      return run.end(err);
    }
  });
  if (run.status.cancellation?.byTemporal && result.outcome === 'cancelled')
    throw new CancelledFailure(
      `cancelled through Temporal and compensated: ${run.status.recoveryPoints.map((p) => p.step).join(', ') || 'nothing was done'}`,
    );
  return result;
}
