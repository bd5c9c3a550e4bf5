// The step primitive of a run (entity-run.ts): one call of the body, one activity with the
// entity's key, its record in the run's state (run-state.ts) holding its undo, its rounds of
// waiting and parking (call-rounds.ts), its recovery point. A step called once per run keeps
// the key `<kind>:<entityId>:<step>`; a step called once per item (`steps.x.each(item, …)`)
// gets `<kind>:<entityId>:<step>:<item>`, and its undo likewise. Workflow code.
import { runCall, type CallOutcome, type RoundsContext } from './call-rounds';
import type { Other } from './claim-flow';
import { businessFailureOf, describeFailure } from './failures';
import { forwardRefusal } from './run-budget';
import { NotOwner, RunInterrupted, StepFailure } from './run-errors';
import { bodyOpen, openCall, owedUndos, type RunState } from './run-state';
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
    const key =
      item === undefined
        ? (run.keys[s.name] ?? stepKey(run.kind, run.entityId, s.name))
        : stepKey(run.kind, run.entityId, s.name, item);
    // Read before this call owes an undo of its own (the budget counts it in).
    const refusal = forwardRefusal(runtime.info().historyLength, owedUndos(state));
    const record = openCall(state, { name: s.name, item, kind: 'step', key });
    if (item !== undefined) status.keys[record.id] = key;
    // Set before the call: from now on its effect may exist.
    if (s.compensation) record.compensation = s.compensation();
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
      });
    } catch (err) {
      // A business failure: this call did nothing, there is nothing to undo.
      record.compensation = undefined;
      const type = businessFailureOf(err, failures);
      if (type === undefined) throw err;
      throw new StepFailure(record.id, type, s.failures![type]!, describeFailure(err));
    }
    if (outcome.kind === 'stopped') throw interrupted(state);
    if (claiming) {
      const other = run.claim.verdictOf(outcome);
      if (other) {
        record.compensation = undefined;
        throw new NotOwner(other);
      }
      state.claimed = true;
    }
    const resolved = outcome.kind === 'resolved';
    // Its result is known now: the undo may use it (a refund by the charge's ID).
    if (!resolved && record.compensation && s.compensation)
      record.compensation = s.compensation(outcome.value);
    return { value: outcome.value, resolved };
  }

  return { step };
}
