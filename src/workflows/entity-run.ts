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
import { runCall } from './call-rounds';
import { claimFlow, type Other } from './claim-flow';
import { describeFailure } from './failures';
import { resumeOf, RunCheckpoint, type RunInput } from './run-checkpoint';
import { NotOwner, RunEnded, RunInterrupted, StepFailure } from './run-errors';
import { setUpRun } from './run-setup';
import { activeCalls, endRun, openCall, unwindOrder, type Ending } from './run-state';
import { stepPrimitive } from './run-step';
import type { RunResult, RunSpec, StackEntry } from './run-types';
import type { SagaRuntime } from './saga-runtime';
import type { SagaResult } from './saga-status';

export type { RunResult, RunSpec, StackEntry, StepSpec } from './run-types';

/** The failure type a run closes Failed with when its body threw (after unwinding). */
export const RUN_FAILED = 'RunFailed';

/** A run's state, face and primitives; `lifecycle` runs it. */
export function createEntityRun<TData, TExtra extends object>(
  spec: RunSpec<TData, TExtra>,
  input: RunInput<TData>,
  runtime: SagaRuntime,
) {
  const base = setUpRun(spec, input, runtime);
  const { state, status, rounds, setStep, react, entityId } = base;

  /** Undoes `entries` in order: each a call of its own, waiting and parking like a step. */
  async function unwind(entries: ReadonlyArray<{ entry: StackEntry; done?: () => void }>) {
    for (const { entry, done } of entries) {
      if (state.movingOn) return;
      const record = openCall(state, {
        name: entry.name,
        item: entry.item,
        kind: 'compensation',
        key: entry.key,
      });
      const got = await runCall(rounds, record, { call: entry, running: 'compensating' });
      // Stopped only when the unwind moves on to a fresh run: that run does this undo.
      if (got.kind !== 'stopped') done?.();
    }
  }

  /** The unwind goes on in the next run of the chain, its undos owed as data. */
  function moveOn(ending: Ending): Promise<never> {
    const resume = resumeOf(state, status, undefined, {}, input.resume, ending);
    return runtime.continueAsNew({ ...input, resume });
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
    if (state.movingOn) return moveOn(ending);
    await settling(ending.outcome);
    if (state.movingOn) return moveOn(ending);
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
    // The previous run of the chain moved on while unwinding: this one only unwinds.
    if (input.resume?.ending) return compensating(input.resume.ending);
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
    const checkpoint = 'err' in ended && ended.err instanceof RunCheckpoint ? ended.err : undefined;
    if (checkpoint && !state.ending && activeCalls(state) === 0) {
      // The body checkpointed: the next run of the chain goes on from what it passed.
      const resume = resumeOf(state, status, checkpoint.body, checkpoint.mailboxes, input.resume);
      return runtime.continueAsNew({ ...input, resume });
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
      // NotOwner, RunInterrupted and a checkpoint the run's ending overtook follow an ending
      // the state already holds.
      else if (
        !(
          err instanceof RunInterrupted ||
          err instanceof NotOwner ||
          err instanceof RunCheckpoint
        ) ||
        !state.ending
      )
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
  input: RunInput<TData>,
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
