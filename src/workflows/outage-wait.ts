// A call outside a run's steps (a cancellation workflow's refund) that a provider outage must
// not fail: its fast round, then, on a transient cause, one waiting round for the window the
// failure carries (an activity Temporal retries: call-rounds.ts says why). Anything else, or a
// spent window, throws. Workflow code.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import { providerTaskQueue } from '../util/provider-queue';
import { waitingRound } from './call-rounds';
import { transientCauseOf } from './failures';
import { activityOptionsOf, type RetryClass, type WaitingRound } from './retry-classes';

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

/**
 * Activities of one retry class whose every call waits out an outage (waitOutTransient): a
 * cancellation workflow's calls outside a run's steps, where no operator stands by to retry.
 * The window is the worker's, from the failure; a cause nobody waits out throws at once.
 *
 * @example
 * const foreign = proxyThroughOutage<Pick<Activities, 'reverseTransfer'>>('foreign');
 * await foreign.reverseTransfer({ key, payoutId });
 */
export function proxyThroughOutage<A extends object>(
  retry: RetryClass,
  nonRetryable?: readonly string[],
  /** The provider its calls go to (that provider's task queue and limit). Default: none. */
  provider?: string,
): A {
  type Calls = Record<string, (input: unknown) => Promise<unknown>>;
  // Asked at each call, not here: a module declares its proxies at load, outside any run.
  const proxyOf = (round?: WaitingRound) =>
    proxyActivities<Calls>({
      ...activityOptionsOf(retry, { nonRetryable, ...(round ? { round } : {}) }),
      ...(provider === undefined
        ? {}
        : { taskQueue: providerTaskQueue(workflowInfo().taskQueue, provider) }),
    });
  return new Proxy({} as A, {
    get: (_target, name) => (input: unknown) =>
      waitOutTransient((round) => proxyOf(round)[String(name)]!(input)),
  });
}
