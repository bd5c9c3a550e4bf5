// The step primitive of a run (entity-run.ts): one activity with the entity's key, its
// compensation pushed before the call, the step runner's waits and parking, its recovery
// point; and the journal that lets a run continue as new where it was (run-carry.ts): each
// call of the body gets a number, a step that already ran in an earlier run of the chain
// answers from the journal instead of running again. Workflow code.
import { businessFailureOf, describeFailure } from './failures';
import {
  ContinueAsNewRequested,
  nearHistoryLimit,
  type JournalEntry,
  type RunCarry,
} from './run-carry';
import { NotOwner, RunInterrupted, StepFailure } from './run-errors';
import type { StackEntry, StepSpec } from './run-types';
import type { SagaRuntime } from './saga-runtime';
import type { RunStep, StepOutcome, WaitEpisode } from './step-runner';
import { stepKey } from './step-key';

/** What the step primitive needs of its run. */
export interface StepRun {
  runtime: SagaRuntime;
  kind: string;
  entityId: string;
  keys: Readonly<Record<string, string>>;
  flags: { compensating: boolean; ending: boolean; claimed: boolean; inflight: number };
  stack: StackEntry[];
  spec: { claim?: { step: string } };
  runStep: RunStep;
  claim: {
    verdictOf(outcome: StepOutcome<unknown>): ConstructorParameters<typeof NotOwner>[0] | undefined;
    verifyResolve(): Promise<unknown>;
  };
  checkOpen(): void;
  summaryOf(name: string, key: string): string;
  carried: RunCarry | undefined;
}

export function stepPrimitive(run: StepRun) {
  const { runtime, flags, stack, carried } = run;
  const journal: Record<number, JournalEntry> = { ...carried?.journal };
  let seq = 0;
  /** The number of the body's next primitive call (steps, sleeps, waits, children). */
  const nextSeq = () => ++seq;
  /** Steps in flight by name, with their call's number (a waiting one may carry on as new). */
  const inflight = new Map<string, number>();
  /** A continued run may go on at a safe point: nothing else in flight, not unwinding. */
  const mayContinue = (running: number) =>
    !flags.compensating &&
    !flags.ending &&
    flags.inflight === running &&
    nearHistoryLimit(runtime.info());

  /** Before another round of a waiting step: continue as new there when history is long. */
  function beforeRound(step: string, episode: WaitEpisode): void {
    const n = inflight.get(step);
    if (n !== undefined && mayContinue(1))
      throw new ContinueAsNewRequested({ seq: n, step, episode });
  }

  /**
   * One step: returns the activity's result (or the operator's, when resolved, and says so).
   * Throws StepFailure for a business failure, RunInterrupted when the run was cancelled while
   * it waited, NotOwner when it was the claiming step and another run owns the entity.
   */
  async function step(s: StepSpec, args: unknown): Promise<{ value: unknown; resolved: boolean }> {
    const n = nextSeq();
    const done = journal[n];
    // Ran in an earlier run of the chain: its effect and compensation are already accounted.
    if (done && done.done) return { value: done.value, resolved: done.resolved ?? false };
    run.checkOpen();
    const resumed = carried?.waiting?.seq === n ? carried.waiting : undefined;
    if (!resumed && mayContinue(0)) throw new ContinueAsNewRequested();
    const key = run.keys[s.name] ?? stepKey(run.kind, run.entityId, s.name);
    let entry = resumed ? stack.find((e) => e.seq === n) : undefined;
    if (!resumed && s.compensation) {
      entry = { ...s.compensation(), seq: n };
      stack.push(entry);
    }
    const failures = Object.keys(s.failures ?? {});
    const claiming = s.name === run.spec.claim?.step;
    flags.inflight++;
    inflight.set(s.name, n);
    let outcome;
    try {
      outcome = await run.runStep({
        step: s.name,
        running: s.running ?? s.name,
        call: () =>
          runtime.execute({
            activity: s.activity,
            input: args,
            retry: s.retry,
            local: s.local?.() ?? false,
            summary: s.summary ?? run.summaryOf(s.name, key),
            nonRetryable: failures,
            timeouts: s.timeouts,
          }),
        failures,
        ...(claiming ? { verifyResolve: run.claim.verifyResolve } : {}),
        ...(resumed ? { episode: resumed.episode } : {}),
      });
    } catch (err) {
      // Continuing as new: the step goes on in the next run, its compensation with it.
      if (err instanceof ContinueAsNewRequested) throw err;
      // A business failure: this step did nothing.
      if (entry) stack.splice(stack.indexOf(entry), 1);
      const type = businessFailureOf(err, failures);
      if (type === undefined) throw err;
      throw new StepFailure(s.name, type, s.failures![type]!, describeFailure(err));
    } finally {
      flags.inflight--;
      inflight.delete(s.name);
    }
    if (outcome.kind === 'cancelled') throw new RunInterrupted('cancelled');
    if (claiming) {
      const other = run.claim.verdictOf(outcome);
      if (other) {
        if (entry) stack.splice(stack.indexOf(entry), 1);
        throw new NotOwner(other);
      }
      flags.claimed = true;
    }
    const resolved = outcome.kind === 'resolved';
    if (!resolved && entry && s.compensation) {
      // Its result is known now: the compensation may use it (a refund by the charge's ID).
      stack[stack.indexOf(entry)] = { ...s.compensation(outcome.value), seq: n };
    }
    journal[n] = { value: outcome.value, resolved, done: true };
    return { value: outcome.value, resolved };
  }

  return { step, nextSeq, journal, beforeRound };
}
