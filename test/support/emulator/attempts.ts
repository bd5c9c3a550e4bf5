// One attempt of an activity and what follows it, shared by regular activities (the server
// retries them: server-activities.ts) and local ones (the worker does: local-activities.ts):
// the attempt's answer after its virtual duration, unless its start-to-close (or heartbeat)
// timeout comes first; then the retry policy's verdict, as the server's nextBackoffInterval
// computes it (maximum attempts, the failure's nextRetryDelay, the backoff, the deadline).
import { ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { activityOptionsOf } from '../../../src/workflows/retry-classes';
import type { ActivityCall } from '../../../src/workflows/saga-runtime';
import type { Clock } from './clock';
import { asApplicationFailure } from './failures';
import type { Answer } from './types';

export type Outcome = { ok: true; value: unknown } | { ok: false; err: Error };

export interface AttemptHost {
  clock: Clock;
  answer: Answer;
  attemptMs(call: ActivityCall): number;
  /** Every attempt made (the test's record). */
  attempted(call: ActivityCall, attempt: number, local: boolean): void;
}

/**
 * Runs attempt `attempt` of `call`: `ended` gets its outcome once, at its end or its timeout
 * (the answer ran at its start: its effect exists whichever comes first).
 */
export function runAttempt(
  host: AttemptHost,
  call: ActivityCall,
  attempt: number,
  local: boolean,
  ended: (out: Outcome) => void,
): void {
  const { clock } = host;
  const started = clock.now;
  let over = false;
  const end = (out: Outcome) => {
    if (over) return;
    over = true;
    ended(out);
  };
  host.attempted(call, attempt, local);
  const options = activityOptionsOf(call.retry, call);
  const limits: Array<[number, TimeoutType, string]> = [];
  if (options.startToCloseTimeout !== undefined)
    limits.push([
      msToNumber(options.startToCloseTimeout),
      TimeoutType.START_TO_CLOSE,
      'StartToClose',
    ]);
  if (!local && options.heartbeatTimeout !== undefined)
    limits.push([msToNumber(options.heartbeatTimeout), TimeoutType.HEARTBEAT, 'Heartbeat']);
  const first = limits.sort((x, y) => x[0] - y[0])[0];
  if (first)
    clock.at(started + first[0], () =>
      end({
        ok: false,
        err: new TimeoutFailure(`activity ${first[2]} timeout`, undefined, first[1]),
      }),
    );
  clock.external++;
  void Promise.resolve()
    .then(() => host.answer(call, { attempt, round: !!call.round, now: started, local }))
    .then(
      (value): Outcome => ({ ok: true, value }),
      (err: unknown): Outcome => ({ ok: false, err: err as Error }),
    )
    .then((out) => {
      clock.external--;
      const ms = host.attemptMs(call);
      if (ms > 0) clock.at(started + ms, () => end(out));
      else end(out);
    });
}

/** What a failed attempt leads to: a retry at `at`, or the end with this retry state. */
export function afterFailure(
  call: ActivityCall,
  attempt: number,
  err: Error,
  now: number,
  deadline?: number,
): { cause: Error; at?: number; state?: RetryState } {
  const cause = err instanceof TimeoutFailure ? err : asApplicationFailure(err);
  const policy = activityOptionsOf(call.retry, call).retry ?? {};
  if (
    cause instanceof ApplicationFailure &&
    (cause.nonRetryable || (policy.nonRetryableErrorTypes ?? []).includes(cause.type ?? ''))
  )
    return { cause, state: RetryState.NON_RETRYABLE_FAILURE };
  const max = policy.maximumAttempts ?? 0;
  if (max > 0 && attempt >= max) return { cause, state: RetryState.MAXIMUM_ATTEMPTS_REACHED };
  const initial = msToNumber(policy.initialInterval ?? 1000);
  const maxInterval = msToNumber(policy.maximumInterval ?? initial * 100);
  const delay =
    cause instanceof ApplicationFailure && cause.nextRetryDelay != null
      ? msToNumber(cause.nextRetryDelay)
      : Math.min(maxInterval, initial * (policy.backoffCoefficient ?? 2) ** (attempt - 1));
  if (deadline !== undefined && now + delay > deadline) return { cause, state: RetryState.TIMEOUT };
  return { cause, at: now + delay };
}
