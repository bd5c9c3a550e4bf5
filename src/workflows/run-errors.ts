// How a run's body is interrupted: errors thrown through the domain's code to the engine,
// which ends the run accordingly (unwinds, settles, finishes). Only StepFailure is meant to
// be caught by a body (to handle a business failure itself). Pure (workflow code).
import type { ClaimRecord, ClaimVerdict } from '../db/entity-claim';

/**
 * A step ended with one of its business failures (a declined card): the step did nothing.
 * Uncaught, it ends the run with the step's outcome after unwinding what was done; a body
 * may catch it and go on (its compensation was never pushed for good).
 *
 * @example
 * try { await steps.charge(input) } catch (err) {
 *   if (!(err instanceof StepFailure) || err.type !== 'PaymentDeclined') throw err;
 *   await steps.chargeBackupCard(input);
 * }
 */
export class StepFailure extends Error {
  override readonly name = 'StepFailure';
  constructor(
    /** The step that failed. */
    readonly step: string,
    /** The ApplicationFailure type the activity threw (`PaymentDeclined`). */
    readonly type: string,
    /** The outcome the step's `failures` name for it (`declined`). */
    readonly outcome: string,
    /** The failure as a sentence (type and message). */
    readonly reason: string,
  ) {
    super(`step ${step} failed: ${reason}`);
  }
}

/** The body chose to end the run with an outcome (`fail`): unwind, settle, finish. */
export class RunEnded extends Error {
  override readonly name = 'RunEnded';
  constructor(
    readonly outcome: string,
    readonly reason: string,
  ) {
    super(`run ended ${outcome}: ${reason}`);
  }
}

/**
 * The run stops where it is: it was cancelled, or it is already ending (another branch of a
 * Promise.all failed). Thrown by every step, wait and child the body starts from then on.
 */
export class RunInterrupted extends Error {
  override readonly name = 'RunInterrupted';
  constructor(readonly why: 'cancelled' | 'ending') {
    super(why === 'cancelled' ? 'the run was cancelled' : 'the run is ending');
  }
}

/** The claim says another run owns the entity: this run ends without acting. */
export class NotOwner extends Error {
  override readonly name = 'NotOwner';
  constructor(readonly verdict: Exclude<ClaimVerdict<ClaimRecord>, { kind: 'owner' }>) {
    super(`${verdict.kind}: owned by ${verdict.claim.workflowId}`);
  }
}

/**
 * A call's input (or result) is over what one call may carry in Temporal's history
 * (run-budget.ts MAX_PAYLOAD_BYTES): the call never starts. Uncaught, the run unwinds and
 * closes Failed with this message.
 */
export class PayloadTooLarge extends Error {
  override readonly name = 'PayloadTooLarge';
  constructor(
    /** The call: `charge`, or `label:parcel-1`. */
    readonly call: string,
    reason: string,
  ) {
    super(reason);
  }
}
