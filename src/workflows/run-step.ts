// The step primitive of a run (entity-run.ts): one call of the body, one activity with the
// entity's key, its record in the run's state (run-state.ts) holding its undo, its rounds of
// waiting and parking (call-rounds.ts), its recovery point. A step called once per run keeps
// the key `<kind>:<entityId>:<step>`; a step called once per item (`steps.x.each(item, …)`)
// gets `<kind>:<entityId>:<step>:<item>`, and its undo likewise. Workflow code.
import { runCall, type CallOutcome, type RoundsContext } from './call-rounds';
import type { Other } from './claim-flow';
import { businessFailureOf, describeFailure } from './failures';
import { callReserve, payloadBytes, payloadRefusal, type Budget } from './run-budget';
import { NotOwner, PayloadTooLarge, RunInterrupted, StepFailure } from './run-errors';
import {
  bodyOpen,
  claimGate,
  learnOtherOwner,
  callIdOf,
  openCall,
  unclaimedCall,
  type RunState,
} from './run-state';
import type { StepSpec } from './run-types';
import type { SagaRuntime } from './saga-runtime';
import type { SagaStatus } from './saga-status';
import { stepKey } from './step-key';

/** What the step primitive needs of its run. */
export interface StepPrimitiveRun {
  runtime: SagaRuntime;
  kind: string;
  entityId: string;
  keys: Readonly<Record<string, string>>;
  status: SagaStatus;
  state: RunState;
  budget: Budget;
  rounds: RoundsContext;
  spec: { claim?: { step: string } };
  claim: {
    verdictOf(outcome: CallOutcome): Other | undefined;
    verifyResolve(): Promise<unknown>;
  };
  summaryOf(name: string, key: string): string;
}

/** The error a call of the body meets once the run no longer goes forward. */
export function interrupted(state: RunState): RunInterrupted {
  return new RunInterrupted(state.ending?.cause === 'cancel' ? 'cancelled' : 'ending');
}

/** Microtask turns a call waits for a claiming step started beside it in one Promise.all. */
const BESIDE_TURNS = 16;

/**
 * Claims first: a forward call of a run whose claim one of its steps makes waits until that
 * step said this run owns the entity, and never starts when it did not. A claiming step not
 * yet started may be its neighbour in the same `Promise.all` (started a moment later, in the
 * same workflow task); one started nowhere near is a body that would wait for ever, refused.
 */
export async function claimVerdict(
  runtime: SagaRuntime,
  state: RunState,
  claimStep: string | undefined,
  name: string,
): Promise<void> {
  for (let turn = 0; claimGate(state, claimStep, name) === 'unstarted'; turn++) {
    if (turn === BESIDE_TURNS) throw unclaimedCall(claimStep!, name);
    await Promise.resolve();
  }
  const gate = () => claimGate(state, claimStep, name);
  if (gate() === 'open') return;
  await runtime.condition(() => gate() !== 'pending' || !bodyOpen(state));
  if (!bodyOpen(state)) throw interrupted(state);
  if (gate() === 'failed') throw unclaimedCall(claimStep!, name, true);
}

export function stepPrimitive(run: StepPrimitiveRun) {
  const { runtime, state, status } = run;

  /**
   * One call of a step: returns the activity's result (or the operator's, when resolved, and
   * says so). Throws StepFailure for a business failure (the call did nothing), RunInterrupted
   * once the run stops going forward, NotOwner when it was the claiming step and another run
   * owns the entity, WorkflowDefinitionError when the step was called for this item before.
   */
  async function step(
    s: StepSpec,
    args: unknown,
    item?: string,
  ): Promise<{ value: unknown; resolved: boolean }> {
    if (!bodyOpen(state)) throw interrupted(state);
    const claimStep = run.spec.claim?.step;
    if (claimGate(state, claimStep, s.name) !== 'open')
      await claimVerdict(runtime, state, claimStep, s.name);
    const key =
      item === undefined
        ? (run.keys[s.name] ?? stepKey(run.kind, run.entityId, s.name))
        : stepKey(run.kind, run.entityId, s.name, item);
    // Its input travels in the history, at most once per round: refused here when too large.
    const inputBytes = payloadBytes(args);
    const tooLarge = payloadRefusal(`the input of ${callIdOf(s.name, item)}`, inputBytes);
    if (tooLarge !== undefined) throw new PayloadTooLarge(callIdOf(s.name, item), tooLarge);
    // Read before this call is opened (the budget then reserves it).
    const refusal = run.budget.forwardRefusal(callReserve(inputBytes));
    const record = openCall(state, { name: s.name, item, kind: 'step', key });
    record.inputBytes = inputBytes;
    if (item !== undefined) status.keys[record.id] = key;
    const failures = Object.keys(s.failures ?? {});
    const claiming = s.name === run.spec.claim?.step;
    let outcome;
    try {
      outcome = await runCall(run.rounds, record, {
        call: {
          activity: s.activity,
          input: args,
          retry: s.retry,
          local: s.local?.() ?? false,
          summary: s.summary ?? run.summaryOf(record.id, key),
          nonRetryable: failures,
          timeouts: s.timeouts,
          ...(s.provider !== undefined ? { provider: s.provider } : {}),
        },
        running: s.running ?? s.name,
        failures,
        ...(claiming ? { verifyResolve: run.claim.verifyResolve } : {}),
        ...(refusal !== undefined ? { refusal } : {}),
        ...(s.compensation ? { undo: s.compensation } : {}),
      });
    } catch (err) {
      const type = businessFailureOf(err, failures);
      if (type === undefined) throw err;
      throw new StepFailure(record.id, type, s.failures![type]!, describeFailure(err));
    }
    if (outcome.kind === 'stopped') throw interrupted(state);
    if (claiming) {
      const other = run.claim.verdictOf(outcome);
      if (other) {
        // Its effect was the owner's claim, not this run's: nothing of it to undo.
        record.compensation = undefined;
        learnOtherOwner(state, other);
        throw new NotOwner(other);
      }
      state.claimed = true;
    }
    return { value: outcome.value, resolved: outcome.kind === 'resolved' };
  }

  return { step };
}
