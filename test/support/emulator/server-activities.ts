// Regular activities as the server runs them: attempts under the call's retry policy (the
// fast round's few; a waiting round's every interval until its schedule-to-close deadline; a
// failure's nextRetryDelay honoured), each attempt bounded by its start-to-close and heartbeat
// timeouts (the emulated activity never heartbeats), non-retryable failures at once, and the
// events each writes: Started with Completed/Failed/TimedOut when it closes (Started carries
// the last attempt's failure), CancelRequested on a cancel, Canceled at once when no attempt is
// in flight. A cancel requested while an attempt is in flight lets it finish: a completed
// attempt is reported completed, a failed one as its own failure (ActivityTaskFailed,
// RetryState CANCEL_REQUESTED), as the server's RetryActivity does.
import {
  ActivityFailure,
  CancelledFailure,
  RetryState,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import { msToNumber } from '@temporalio/common/lib/time';
import { activityOptionsOf } from '../../../src/workflows/retry-classes';
import type { ActivityCall } from '../../../src/workflows/saga-runtime';
import { afterFailure, runAttempt, type AttemptHost, type Outcome } from './attempts';
import { failureBytes, payloadBytes, type EventType } from './limits';
import type { Delivery } from './types';

export type Events = Array<[EventType, number?]>;

/** What the activities need of their run. */
export interface ActivityHost extends AttemptHost {
  /** A job and its events arrive (a transaction of their own). */
  arrive(job: Delivery, events: Events): void;
  /** Events of the transaction running now (a task's completion). */
  write(events: Events): void;
  running(): boolean;
}

interface Scheduled {
  seq: number;
  call: ActivityCall;
  attempt: number;
  inFlight: boolean;
  cancelRequested: boolean;
  closed: boolean;
  deadline?: number;
  lastFailure?: Error;
}

export function activityFailure(activity: string, seq: number, state: RetryState, cause: Error) {
  return new ActivityFailure(
    'Activity task failed',
    activity,
    String(seq),
    state,
    undefined,
    cause,
  );
}

export class ServerActivities {
  private readonly open = new Map<number, Scheduled>();

  constructor(private readonly host: ActivityHost) {}

  /** Activities scheduled and not closed (the pending-activities limit counts them). */
  get pending(): number {
    return this.open.size;
  }

  schedule(seq: number, call: ActivityCall): void {
    const options = activityOptionsOf(call.retry, call);
    const a: Scheduled = {
      seq,
      call,
      attempt: 0,
      inFlight: false,
      cancelRequested: false,
      closed: false,
    };
    this.open.set(seq, a);
    if (options.scheduleToCloseTimeout !== undefined) {
      a.deadline = this.host.clock.now + msToNumber(options.scheduleToCloseTimeout);
      this.host.clock.at(a.deadline, () => {
        if (a.closed || !a.inFlight) return;
        const timeout = new TimeoutFailure(
          'activity ScheduleToClose timeout',
          undefined,
          TimeoutType.SCHEDULE_TO_CLOSE,
        );
        if (a.lastFailure) Object.defineProperty(timeout, 'cause', { value: a.lastFailure });
        this.close(a, 'timedOut', activityFailure(call.activity, seq, RetryState.TIMEOUT, timeout));
      });
    }
    this.start(a);
  }

  /** RequestCancelActivityTask: CancelRequested, and Canceled at once when nothing is in flight. */
  requestCancel(seq: number): void {
    const a = this.open.get(seq);
    if (!a || a.closed || a.cancelRequested) return;
    a.cancelRequested = true;
    this.host.write([['ActivityTaskCancelRequested']]);
    if (a.inFlight) return;
    a.closed = true;
    this.open.delete(seq);
    const failure = activityFailure(
      a.call.activity,
      seq,
      RetryState.CANCEL_REQUESTED,
      new CancelledFailure('cancelled'),
    );
    this.host.arrive({ type: 'activity', seq, ok: false, value: failure }, [
      ['ActivityTaskCanceled'],
    ]);
  }

  /** The run closed (or was reset away): nothing it scheduled reports any more. */
  abandonAll(): void {
    for (const a of this.open.values()) a.closed = true;
    this.open.clear();
  }

  private start(a: Scheduled): void {
    if (a.closed || !this.host.running()) return;
    a.attempt++;
    a.inFlight = true;
    const attempt = a.attempt;
    runAttempt(this.host, a.call, attempt, false, (out) => {
      if (a.closed || a.attempt !== attempt) return;
      a.inFlight = false;
      this.ended(a, out);
    });
  }

  private ended(a: Scheduled, out: Outcome): void {
    if (out.ok) return this.close(a, 'completed', out.value);
    const next = afterFailure(a.call, a.attempt, out.err, this.host.clock.now, a.deadline);
    const fail = (state: RetryState) => activityFailure(a.call.activity, a.seq, state, next.cause);
    if (a.cancelRequested) return this.close(a, 'failed', fail(RetryState.CANCEL_REQUESTED));
    if (next.state !== undefined)
      return this.close(
        a,
        next.cause instanceof TimeoutFailure ? 'timedOut' : 'failed',
        fail(next.state),
      );
    a.lastFailure = next.cause;
    this.host.clock.at(next.at!, () => this.start(a));
  }

  private close(a: Scheduled, how: 'completed' | 'failed' | 'timedOut', value: unknown): void {
    a.closed = true;
    this.open.delete(a.seq);
    const started = a.attempt > 1 && a.lastFailure ? failureBytes(a.lastFailure) : 0;
    const closing: [EventType, number] =
      how === 'completed'
        ? ['ActivityTaskCompleted', payloadBytes(value)]
        : how === 'failed'
          ? ['ActivityTaskFailed', failureBytes((value as Error).cause)]
          : ['ActivityTaskTimedOut', 0];
    this.host.arrive({ type: 'activity', seq: a.seq, ok: how === 'completed', value }, [
      ['ActivityTaskStarted', started],
      closing,
    ]);
  }
}
