// Local activities as the worker runs them: inside the workflow task that scheduled them (the
// task stays open, heartbeated every 8 s, while they run), attempts under the call's retry
// policy with the worker's own backoff, each bounded by its start-to-close timeout; the
// result comes back as a job of the same task and is written as a marker when the task
// completes. A worker that dies (or a task that fails) before the marker is written loses the
// result: the next incarnation runs the activity again.
import { CancelledFailure, RetryState } from '@temporalio/common';
import type { ActivityCall } from '../../../src/workflows/saga-runtime';
import { afterFailure, runAttempt, type AttemptHost, type Outcome } from './attempts';
import { activityFailure } from './server-activities';

export interface LocalHost extends AttemptHost {
  /** The activity ended: its result (or failure) for the workflow code. */
  done(seq: number, ok: boolean, value: unknown): void;
}

interface Running {
  call: ActivityCall;
  attempt: number;
  inFlight: boolean;
  cancelled: boolean;
}

export class LocalActivities {
  private readonly open = new Map<number, Running>();
  private dead = false;

  constructor(private readonly host: LocalHost) {}

  get running(): number {
    return this.open.size;
  }

  start(seq: number, call: ActivityCall): void {
    const r: Running = { call, attempt: 0, inFlight: false, cancelled: false };
    this.open.set(seq, r);
    this.attempt(seq, r);
  }

  /** No attempt starts after a cancel; the one in flight finishes and reports. */
  cancel(seq: number): void {
    const r = this.open.get(seq);
    if (!r || r.cancelled) return;
    r.cancelled = true;
    if (!r.inFlight)
      this.finish(
        seq,
        false,
        activityFailure(
          r.call.activity,
          seq,
          RetryState.CANCEL_REQUESTED,
          new CancelledFailure('cancelled'),
        ),
      );
  }

  /** The worker is gone: nothing in flight reports (the next incarnation runs them again). */
  kill(): void {
    this.dead = true;
    this.open.clear();
  }

  private finish(seq: number, ok: boolean, value: unknown): void {
    if (this.dead || !this.open.has(seq)) return;
    this.open.delete(seq);
    this.host.done(seq, ok, value);
  }

  private attempt(seq: number, r: Running): void {
    if (this.dead || !this.open.has(seq)) return;
    r.attempt++;
    r.inFlight = true;
    const attempt = r.attempt;
    runAttempt(this.host, r.call, attempt, true, (out) => {
      if (this.dead || r.attempt !== attempt) return;
      r.inFlight = false;
      this.ended(seq, r, out);
    });
  }

  private ended(seq: number, r: Running, out: Outcome): void {
    if (out.ok) return this.finish(seq, true, out.value);
    const next = afterFailure(r.call, r.attempt, out.err, this.host.clock.now);
    const fail = (state: RetryState) => activityFailure(r.call.activity, seq, state, next.cause);
    if (r.cancelled) return this.finish(seq, false, fail(RetryState.CANCEL_REQUESTED));
    if (next.state !== undefined) return this.finish(seq, false, fail(next.state));
    this.host.clock.at(next.at!, () => this.attempt(seq, r));
  }
}
