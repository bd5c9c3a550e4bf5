// A call outside a run's steps (a cancellation workflow's refund) that a provider outage must
// not fail: its fast round, then, on a transient cause, one waiting round for the window the
// failure carries (an activity Temporal retries: call-rounds.ts says why). Anything else, or a
// spent window, throws. Workflow code.
import { waitingRound } from './call-rounds';
import { transientCauseOf } from './failures';
import type { WaitingRound } from './retry-classes';

/** Runs `call` (its class's budget), then once more as a waiting round if it met an outage. */
export async function waitOutTransient<T>(call: (round?: WaitingRound) => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const transient = transientCauseOf(err);
    if (!transient) throw err;
    return call(waitingRound(transient, transient.windowMs));
  }
}
