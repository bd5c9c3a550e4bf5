// One run of a domain's workflow on the engine: the entity's claim, the keys, the status and
// its Web UI face, the compensation stack, and the step primitive both forms build on (the
// code-first workflow of define-workflow.ts and the step table of saga.ts). A business
// failure or a cancellation (the saga's signal, or Temporal's own: the Web UI's button, the
// CLI, a batch) unwinds the stack; the claim decides whether this run acts at all, and the
// owner settles it at the end. Workflow code.
import { CancelledFailure } from '@temporalio/workflow';
import type { EventWorkflowInput } from '../events/workflow-input';
import { currentDetailsOf, type SagaDisplay } from './details';
import { installOperatorHandlers } from './operator';
import { claimFlow } from './claim-flow';
import { NotOwner, RunEnded, RunInterrupted, StepFailure } from './run-errors';
import type { SagaRuntime } from './saga-runtime';
import { cancelSignal, statusQuery, type SagaResult, type SagaStatus } from './saga-status';
import type { StepContext } from './saga-types';
import { createStalls } from './stalls';
import { createStepRunner } from './step-runner';
import { startAttributes, stepWriter } from './run-face';
import { keysFor } from './step-key';
import { ContinueAsNewRequested, type RunCarry } from './run-carry';
import { stepPrimitive } from './run-step';
import type { RunResult, RunSpec, StackEntry } from './run-types';

export type { RunResult, RunSpec, StackEntry, StepSpec } from './run-types';

/**
 * A run's state and primitives. `setStep` keeps the `Step` search attribute to the values an
 * operator queries.
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
  /** What the run this one continues from carried (undefined: the chain's first run). */
  const carried = input.resume as RunCarry | undefined;
  const status = (carried?.status ?? {
    entityId,
    ...spec.status?.(data),
    step: 'received',
    recoveryPoints: [],
    keys,
  }) as SagaStatus & TExtra;
  const display: SagaDisplay = {
    entity: kind,
    cli: spec.cli ?? spec.domain,
    cancelSignal: (spec.channels?.cancel ?? cancelSignal).name,
    counterpart: (step) => spec.counterpart?.[step] ?? `the ${step} call`,
  };
  const stalls = createStalls();
  const flags = {
    compensating: false,
    ending: false,
    claimed: carried?.claimed ?? false,
    inflight: 0,
  };
  const channels = {
    cancel: spec.channels?.cancel ?? cancelSignal,
    status: spec.channels?.status ?? statusQuery,
  };
  // A continued run's cancellation, if any, is in the status it carried.
  installOperatorHandlers(runtime, channels, status, stalls, carried ? undefined : input.cancel);

  const writer = stepWriter(spec, runtime, () =>
    runtime.setCurrentDetails(currentDetailsOf(display, status)),
  )(status, carried?.visibleStep);
  const setStep = writer.setStep;
  if (!carried) startAttributes(spec, runtime, input, entityId);
  setStep(status.step);
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
    memo: carried?.memo,
    beforeRound: (stepName, episode) => steps.beforeRound(stepName, episode),
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
  const stack: StackEntry[] = carried?.stack ?? [];
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

  const steps = stepPrimitive({ ...base, claim, checkOpen, carried });
  const step = steps.step;

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
    if (err instanceof ContinueAsNewRequested)
      return runtime.continueAsNew({
        ...input,
        resume: {
          status,
          stack,
          claimed: flags.claimed,
          journal: steps.journal,
          ...(err.waiting ? { waiting: err.waiting } : {}),
          visibleStep: writer.visible(),
          memo: runStep.memoState(),
          runs: (carried?.runs ?? 1) + 1,
        } satisfies RunCarry,
      });
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

  return {
    ...base,
    stalls,
    checkOpen,
    step,
    nextSeq: steps.nextSeq,
    journal: steps.journal,
    claim,
    complete,
    end,
  };
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
