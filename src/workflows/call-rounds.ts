// How one call of a run (a step, an undo, the claim, the settlement) retries, waits and parks,
// for every domain. Transient causes (a provider down, a timeout, 429, 5xx, 409 in flight, our
// database failing over) follow Temporal's "fast/slow retries" pattern: the fast round is the
// activity's own few quick attempts; if they fail on a transient cause the call waits in ONE
// waiting round, an activity Temporal retries every interval until the transient window is
// spent (attempts write no history events, so a day's wait costs what a minute's does), and
// only then parks. Anything else that is not a business outcome parks at once. A parked call
// waits for an operator (retryStep, resolveStep) or for the run to stop it. A stop (the run
// unwinds) or an operator's request interrupts the waiting round: no attempt starts after it,
// and an attempt in flight finishes first, so an outcome is never guessed. Workflow code.
import { ApplicationFailure, isCancellation } from '@temporalio/workflow';
import {
  businessFailureOf,
  describeFailure,
  transientCauseOf,
  type TransientCause,
} from './failures';
import { SLOW_PHASE_INTERVAL_MS, type WaitingRound } from './retry-classes';
import { visibleStep, type CallRecord, type RunState } from './run-state';
import type { ActivityCall, SagaRuntime } from './saga-runtime';
import type { SagaStatus } from './saga-status';
import type { Release } from './run-pace';
import type { StackEntry } from './run-types';
import type { StallFace } from './stall-face';

/** How a call ended, when it did not throw a business failure. */
export type CallOutcome =
  { kind: 'done'; value: unknown } | { kind: 'resolved'; value?: unknown } | { kind: 'stopped' };

/** One call as the run plans it. */
export interface CallPlan {
  call: ActivityCall;
  /** What the status says while it runs (`charging`, `compensating`). */
  running: string;
  /** Business failure types: thrown to the caller instead of parking. */
  failures?: readonly string[];
  /**
   * Run when an operator resolves the call: its value is the call's; a throw refuses the
   * resolve (the call stays parked) with the error as the reason.
   */
  verifyResolve?: () => Promise<unknown>;
  /** Record no recovery point (the claim's settlement is not a step of the saga). */
  unrecorded?: boolean;
  /** Set when the call may not start (the history budget): it parks with this cause. */
  refusal?: string;
  /**
   * The call's undo, built from its result when known. The call arms it itself: just before
   * its first attempt is scheduled (from then on its effect may exist), again with the result
   * once it is done or an operator resolved it (with `--result`, the result the body sees),
   * and drops it on a business failure. A call that never scheduled an attempt (refused by
   * the budget, stopped while parked) owes no undo: it never ran.
   */
  undo?: (result?: unknown) => StackEntry | undefined;
}

export interface RoundsContext {
  runtime: SagaRuntime;
  state: RunState;
  status: SagaStatus;
  face: StallFace;
  setStep(step: string): void;
  /** Whether the run stops this call now (run-state.ts shouldStop). */
  stopped(call: CallRecord): boolean;
  /** Why an operator retry of `call` may not be taken now (the history budget), or undefined. */
  retryRefusal(call: CallRecord): string | undefined;
  /** Records that an operator's request of `call` was refused, and why. */
  refuse(call: string, reason: string): void;
  /**
   * Admits an activity of `bytes`: a slot among the calls in flight and room in this workflow
   * task's completion (run-pace.ts); undefined when the call was stopped first.
   */
  admit(bytes: number, stopped: () => boolean): Promise<Release | undefined>;
}

type Attempt = { ok: true; value: unknown } | { ok: false; err: unknown };

/**
 * The last attempt's own words behind a waiting round that ended with its window spent, if
 * Temporal passed them on (its timeout failure may carry them as its cause, or not).
 */
function lastCauseOf(err: unknown): string | undefined {
  for (let at: unknown = err; at instanceof Error; at = at.cause)
    if (at instanceof ApplicationFailure) return describeFailure(at);
  return undefined;
}

/**
 * The waiting round for what is left of the window: Temporal retries every interval (the
 * worker's, or the provider's Retry-After), at most half of what is left, so the round tries
 * again at least once before the window is spent.
 */
export function waitingRound(transient: TransientCause, leftMs: number): WaitingRound {
  const interval = Math.max(
    transient.intervalMs ?? SLOW_PHASE_INTERVAL_MS,
    transient.retryAfterMs ?? 0,
  );
  return { leftMs, intervalMs: Math.max(1, Math.min(interval, Math.floor(leftMs / 2))) };
}

/** Runs one call: see the file's header. Throws the activity's business failure, if any. */
export async function runCall(
  ctx: RoundsContext,
  record: CallRecord,
  plan: CallPlan,
): Promise<CallOutcome> {
  const { runtime, status, face, state } = ctx;
  const failures = plan.failures ?? [];
  const iso = (ms: number) => new Date(ms).toISOString();
  const stopped = () => ctx.stopped(record);
  /** The window this call learned from its failures (an activity timeout carries none). */
  let learnedWindowMs: number | undefined;
  /** An attempt of this call reached Temporal (it outlived the task that scheduled it). */
  let sent = false;

  const attempt = async (round?: WaitingRound): Promise<Attempt> => {
    const release = await ctx.admit(record.inputBytes ?? 0, stopped);
    // Stopped while it waited for room: nothing was scheduled (the caller sees `stopped`).
    if (!release) return { ok: false, err: undefined };
    if (plan.undo && !record.compensation) record.compensation = plan.undo();
    const task = runtime.info().historyLength;
    const inFlight = runtime.execute(round ? { ...plan.call, round } : plan.call);
    record.interrupt = inFlight.cancel;
    try {
      return { ok: true, value: await inFlight.result };
    } catch (err) {
      // Cancelled in the very workflow task that scheduled it: the SDK never sends the command
      // (it drops a schedule cancelled before it left), so a call that never reached Temporal
      // before owes no undo.
      if (!sent && isCancellation(err) && runtime.info().historyLength === task)
        record.compensation = undefined;
      return { ok: false, err };
    } finally {
      if (runtime.info().historyLength !== task) sent = true;
      record.interrupt = undefined;
      release();
    }
  };
  /** How long the last waiting round lasted, until the memo's `waited` totals have it. */
  let waitEnded: number | undefined;
  const takeWait = () => {
    const ms = waitEnded;
    waitEnded = undefined;
    return ms;
  };
  /** Leaves a stall: the call's status, Step and memo no longer say it. */
  const unstall = () => {
    if (!record.stall) return;
    record.stall = undefined;
    face.cleared(record, plan.running, takeWait());
  };
  const end = (kind: 'done' | 'resolved' | 'stopped', value?: unknown) => {
    record.state = kind;
    unstall();
    // Its effect exists now: the undo gets the result (a refund by the charge's ID). Resolved
    // without a result, an undo armed before keeps what it had.
    if (plan.undo && (kind === 'done' || (kind === 'resolved' && value !== undefined)))
      record.compensation = plan.undo(value);
    else if (plan.undo && kind === 'resolved' && !record.compensation)
      record.compensation = plan.undo();
    if (kind !== 'stopped' && !plan.unrecorded)
      status.recoveryPoints.push({ step: record.id, at: iso(runtime.now()), how: kind });
    if (kind === 'done') return { kind, value } as const;
    if (kind === 'resolved') return value === undefined ? { kind } : { kind, value };
    return { kind } as const;
  };
  const failed = (err: unknown): never => {
    record.state = 'failed';
    // A business failure: the call did nothing, there is nothing to undo.
    if (plan.undo) record.compensation = undefined;
    unstall();
    throw err;
  };
  const park = (cause: string) => {
    const sinceMs = record.stall?.sinceMs ?? runtime.now();
    record.state = 'parked';
    record.stall = { cause, sinceMs };
    face.parked(record, plan.running, takeWait());
  };

  let refusal = plan.refusal;
  for (;;) {
    if (refusal !== undefined) {
      park(refusal);
    } else {
      record.state = 'running';
      ctx.setStep(visibleStep(state, plan.running));
      let got = await attempt();
      if (got.ok) return end('done', got.value);
      if (businessFailureOf(got.err, failures)) failed(got.err);
      if (stopped()) return end('stopped');
      const cause = describeFailure(got.err);
      const transient = transientCauseOf(got.err, learnedWindowMs);
      if (transient) {
        learnedWindowMs = transient.windowMs;
        const sinceMs = runtime.now();
        const untilMs = sinceMs + transient.windowMs;
        record.state = 'waiting';
        record.stall = { cause, sinceMs, untilMs };
        face.waiting(record, plan.running);
        got = await attempt(waitingRound(transient, untilMs - runtime.now()));
        waitEnded = runtime.now() - sinceMs;
        if (got.ok) return end('done', got.value);
        if (businessFailureOf(got.err, failures)) failed(got.err);
        if (stopped()) return end('stopped');
        // Interrupted by an operator's request (taken below), or the window is spent.
        if (!record.request)
          park(
            `${lastCauseOf(got.err) ?? cause} (waited until ${iso(untilMs)}, the transient window)`,
          );
      } else park(cause);
    }
    refusal = undefined;
    // Parked (or an operator's request interrupted the wait): an operator decides.
    const decision = await awaitOperator(ctx, record, {
      park: () => park(record.stall?.cause ?? 'interrupted'),
      ...(plan.verifyResolve ? { verifyResolve: plan.verifyResolve } : {}),
    });
    if (decision.kind === 'stopped') return end('stopped');
    if (decision.kind === 'resolved') return end('resolved', decision.value);
    // Retried: a new episode with the same key, its fast round first.
    record.episodes++;
    unstall();
  }
}

/** What an operator decided of a parked call, or that the run stopped it first. */
export type Decision =
  { kind: 'resolved'; value?: unknown } | { kind: 'retry' } | { kind: 'stopped' };

/**
 * A parked call (or one whose waiting round an operator's request interrupted) waits for an
 * operator: a resolve (checked by `verifyResolve` when given: a throw refuses it), a retry
 * (refused past the history budget), or the run stopping it. Refused requests are recorded
 * and the call stays parked.
 */
export async function awaitOperator(
  ctx: RoundsContext,
  record: CallRecord,
  how: { park(): void; verifyResolve?: () => Promise<unknown> },
): Promise<Decision> {
  const stopped = () => ctx.stopped(record);
  for (;;) {
    if (!record.request && !stopped()) {
      if (record.state !== 'parked') how.park();
      await ctx.runtime.condition(() => record.request !== undefined || stopped());
    }
    if (stopped()) return { kind: 'stopped' };
    const request = record.request!;
    record.request = undefined;
    if (request.action === 'resolve') {
      if (!how.verifyResolve) return { kind: 'resolved', value: request.result };
      try {
        return { kind: 'resolved', value: await how.verifyResolve() };
      } catch (err) {
        ctx.refuse(record.id, describeFailure(err));
        continue;
      }
    }
    const no = ctx.retryRefusal(record);
    if (no === undefined) {
      // Running again from this moment: the budget reserves it before the next call's check
      // (several retried at once must not all pass against the same room).
      record.state = 'running';
      return { kind: 'retry' };
    }
    ctx.refuse(record.id, no);
  }
}

/**
 * Whether a call's attempt in flight is to be interrupted now: the run stops it, or an
 * operator asked something of it while it waits (its waiting round gives way at once).
 */
export function interruptWanted(call: CallRecord, stop: boolean): boolean {
  return call.interrupt !== undefined && (stop || (call.state === 'waiting' && !!call.request));
}
