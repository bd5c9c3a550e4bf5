// Activities as Temporal runs them, for the emulator: attempts under the call's retry policy
// (the fast round's few, a waiting round's every interval until its schedule-to-close
// deadline, a provider's nextRetryDelay honoured), non-retryable failures at once, and a
// cancel that stops further attempts while an attempt in flight finishes first
// (WAIT_CANCELLATION_COMPLETED). Each activity's end is one delivery.
import {
  ActivityFailure,
  CancelledFailure,
  RetryState,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { activityOptionsOf } from '../../../src/workflows/retry-classes';
import { payloadBytes } from '../../../src/workflows/run-budget';
import type { ActivityCall, InFlight } from '../../../src/workflows/saga-runtime';
import { asApplicationFailure } from './failures';
import type { Answer, EmulatorOptions } from './types';
import type { World } from './world';

interface Pending {
  seq: number;
  call: ActivityCall;
  attempt: number;
  inAttempt: boolean;
  cancelRequested: boolean;
  /** The server decided how it ended; the workflow sees it once `delivered`. */
  settled: boolean;
  delivered: boolean;
  deadline?: number;
  maxAttempts: number;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

export function createActivities(world: World, answer: Answer, options: EmulatorOptions) {
  const pending = new Map<number, Pending>();
  /** Every activity scheduled, and every attempt made. */
  const calls: ActivityCall[] = [];
  const attempts: Array<{ call: ActivityCall; attempt: number; at: number; round: boolean }> = [];

  function settle(p: Pending, ok: boolean, value: unknown) {
    if (p.settled) return;
    p.settled = true;
    world.ready.push({
      delivery: { type: 'activity', seq: p.seq, ok, value },
      apply: () => {
        p.delivered = true;
        if (ok) p.resolve(value);
        else p.reject(value);
      },
    });
  }

  const failure = (p: Pending, state: RetryState, cause: Error) =>
    new ActivityFailure('activity failed', p.call.activity, String(p.seq), state, undefined, cause);
  const cancelled = (p: Pending) =>
    failure(p, RetryState.CANCEL_REQUESTED, new CancelledFailure('cancelled'));

  function startAttempt(p: Pending) {
    if (p.settled) return;
    if (p.cancelRequested) return settle(p, false, cancelled(p));
    p.attempt++;
    p.inAttempt = true;
    const started = world.now;
    attempts.push({ call: p.call, attempt: p.attempt, at: started, round: !!p.call.round });
    world.external++;
    void Promise.resolve()
      .then(() => answer(p.call, { attempt: p.attempt, round: !!p.call.round, now: started }))
      .then(
        (value) => ({ ok: true as const, value }),
        (err: unknown) => ({ ok: false as const, err }),
      )
      .then((r) => {
        world.external--;
        const end = () => endAttempt(p, r);
        const ms = options.attemptMs?.(p.call) ?? 0;
        if (ms > 0) world.at(started + ms, end);
        else end();
        void world.pump();
      });
  }

  function endAttempt(p: Pending, r: { ok: true; value: unknown } | { ok: false; err: unknown }) {
    p.inAttempt = false;
    if (r.ok) return settle(p, true, r.value);
    const cause = asApplicationFailure(r.err);
    const policy = activityOptionsOf(p.call.retry, p.call).retry!;
    const nonRetryable =
      cause.nonRetryable || (policy.nonRetryableErrorTypes ?? []).includes(cause.type ?? '');
    if (nonRetryable) return settle(p, false, failure(p, RetryState.NON_RETRYABLE_FAILURE, cause));
    if (p.cancelRequested) return settle(p, false, cancelled(p));
    if (!p.call.round && p.attempt >= p.maxAttempts)
      return settle(p, false, failure(p, RetryState.MAXIMUM_ATTEMPTS_REACHED, cause));
    const initial = msToNumber(policy.initialInterval ?? 1000);
    const max = msToNumber(policy.maximumInterval ?? initial * 100);
    const backoff = Math.min(max, initial * (policy.backoffCoefficient ?? 2) ** (p.attempt - 1));
    const delay = cause.nextRetryDelay !== undefined ? msToNumber(cause.nextRetryDelay) : backoff;
    const next = world.now + delay;
    if (p.deadline !== undefined && next > p.deadline) {
      const timeout = new TimeoutFailure(
        'activity ScheduleToClose timeout',
        undefined,
        TimeoutType.SCHEDULE_TO_CLOSE,
      );
      Object.defineProperty(timeout, 'cause', { value: cause });
      return settle(p, false, failure(p, RetryState.TIMEOUT, timeout));
    }
    world.at(next, () => startAttempt(p));
  }

  function execute(call: ActivityCall): InFlight {
    const seq = ++world.seqs;
    calls.push(call);
    world.issue(
      {
        type: 'activity',
        seq,
        activity: call.activity,
        key: (call.input as { key?: string } | undefined)?.key,
        local: call.local && call.round === undefined,
        round: call.round !== undefined,
      },
      payloadBytes(call.input),
    );
    let resolve!: (v: unknown) => void;
    let reject!: (e: unknown) => void;
    const result = new Promise<unknown>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const p: Pending = {
      seq,
      call,
      attempt: 0,
      inAttempt: false,
      cancelRequested: false,
      settled: false,
      delivered: false,
      deadline: call.round ? world.now + call.round.leftMs : undefined,
      maxAttempts: activityOptionsOf(call.retry, call).retry?.maximumAttempts ?? 0,
      resolve,
      reject,
    };
    pending.set(seq, p);
    if (!world.replay) startAttempt(p);
    void world.pump();
    return {
      result,
      cancel: () => {
        // The workflow asks to cancel whatever it has not yet seen end (a result already on
        // its way still arrives: the server decided first).
        if (p.delivered || p.cancelRequested) return;
        world.issue({ type: 'cancel-activity', seq });
        p.cancelRequested = true;
        if (!p.settled && !p.inAttempt && !world.replay) settle(p, false, cancelled(p));
        void world.pump();
      },
    };
  }

  /** Applies a logged activity delivery again (replay). */
  function replayed(seq: number, ok: boolean, value: unknown) {
    const p = pending.get(seq);
    if (!p) throw new Error(`replay: no activity ${seq} was scheduled`);
    p.settled = true;
    p.delivered = true;
    if (ok) p.resolve(value);
    else p.reject(value);
  }

  return { execute, replayed, calls, attempts };
}
