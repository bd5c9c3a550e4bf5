// How an order step retries, waits and parks. Transient provider causes (the provider down,
// timeouts, 429, 5xx, 409 in flight) are the "fast/slow retries" pattern: the activity's own
// retry policy is the fast phase (src/workflows/order-activities.ts), then this runner waits
// on a durable timer and runs another fast phase, with the same idempotency key, until the
// worker's ORDER_TRANSIENT_RETRY_WINDOW is spent; only then does the order park. Anything
// else that is not a business outcome parks at once (a 422, another 4xx, an unknown error).
import {
  ActivityFailure,
  ApplicationFailure,
  TimeoutFailure,
  condition,
  patched,
  sleep,
  upsertMemo,
} from '@temporalio/workflow';
import {
  TRANSIENT_FAILURE_TYPES,
  isTransientFailureDetails,
} from '../activities/transient-failure';
import { BUSINESS_FAILURES, FAST_PHASE_ATTEMPTS, SLOW_PHASE_INTERVAL_MS } from './order-activities';
import { parkedActionOf, waitingActionOf } from './order-details';
import {
  ATTENTION_MEMO,
  WAITED_MEMO,
  type Attention,
  type OrderStatus,
  type OrderStep,
  type StepName,
  type WaitedMemo,
} from './order-definitions';

/**
 * Histories recorded before transient waits parked on every failure, without a memo: they
 * replay on that path (patched() is false there), new runs wait and keep the memo.
 */
export const TRANSIENT_WAITS_PATCH = 'transient-waits-and-attention-memo';

export type StepOutcome<T> =
  { kind: 'done'; value: T } | { kind: 'resolved' } | { kind: 'cancelled' };

/**
 * The business failure type behind an activity failure, if it is one. A regular activity's
 * failure arrives as an ActivityFailure around the ApplicationFailure; a local activity's may
 * arrive as the ApplicationFailure itself.
 */
export function businessFailureOf(err: unknown): string | undefined {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (!(cause instanceof ApplicationFailure)) return;
  const type = cause.type ?? '';
  return (BUSINESS_FAILURES as readonly string[]).includes(type) ? type : undefined;
}

export function describeFailure(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  // An activity's named error arrives as an ApplicationFailure whose type is that name.
  if (cause instanceof ApplicationFailure && cause.type) return `${cause.type}: ${cause.message}`;
  return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
}

export interface TransientCause {
  windowMs: number;
  retryAfterMs?: number;
}

/**
 * The window for an activity timeout before any provider failure of this step has told the
 * worker's configured one: ORDER_TRANSIENT_RETRY_WINDOW's default. A timeout means a worker
 * died or was starved mid-call; the same key makes the retry safe, and parking an order for a
 * busy worker would turn load into operator work.
 */
export const TIMEOUT_FALLBACK_WINDOW_MS = 60 * 60 * 1000;

/**
 * The transient cause behind an activity failure, or undefined (park). The window comes with
 * the failure from the worker's configuration; an activity timeout (a worker died or hung
 * mid-call) uses the window this step has learned, else TIMEOUT_FALLBACK_WINDOW_MS.
 */
export function transientCauseOf(err: unknown, knownWindowMs?: number): TransientCause | undefined {
  if (!(err instanceof ActivityFailure)) return;
  const cause = err.cause;
  if (cause instanceof TimeoutFailure)
    return { windowMs: knownWindowMs ?? TIMEOUT_FALLBACK_WINDOW_MS };
  if (!(cause instanceof ApplicationFailure)) return;
  if (!(TRANSIENT_FAILURE_TYPES as readonly string[]).includes(cause.type ?? '')) return;
  const details: unknown = cause.details?.[0];
  if (!isTransientFailureDetails(details)) return;
  return { windowMs: details.windowMs, retryAfterMs: details.retryAfterMs };
}

export interface StepRunnerContext {
  status: OrderStatus;
  setStep(step: OrderStep): void;
  /** The operator's latest retry/resolve request; the runner consumes it. */
  pending: { action?: 'retry' | 'resolve' };
  cancelled(): boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** runStep for one workflow run; keeps the memo (`attention`, `waited`) in step with it. */
export function createStepRunner(ctx: StepRunnerContext) {
  const { status } = ctx;
  let attentionSet = false;
  const waited: WaitedMemo = { totalMs: 0, maxMs: 0 };

  /**
   * One memo upsert: the new attention (or its removal, only if one was set, so a run that
   * never waited records no memo command) and, when a wait ends, the waited totals.
   */
  function updateMemo(attention: Attention | undefined, endedWaitMs?: number): void {
    const memo: Record<string, unknown> = {};
    if (attention || attentionSet) memo[ATTENTION_MEMO] = attention;
    if (endedWaitMs !== undefined) {
      waited.totalMs += endedWaitMs;
      waited.maxMs = Math.max(waited.maxMs, endedWaitMs);
      memo[WAITED_MEMO] = { ...waited };
    }
    attentionSet = attention !== undefined;
    if (Object.keys(memo).length > 0) upsertMemo(memo);
  }

  return async function runStep<T>(
    step: StepName,
    running: OrderStep,
    call: () => Promise<T>,
  ): Promise<StepOutcome<T>> {
    /** The current wait episode: since the step's first transient failure. */
    let episode: { sinceMs: number; attempts: number } | undefined;
    let knownWindowMs: number | undefined;
    const endWait = (attention?: Attention) => {
      const ms = episode ? Date.now() - episode.sinceMs : undefined;
      episode = undefined;
      updateMemo(attention, ms);
    };
    /** After a wait or park: cancel and resolve end the step; retry (or a timer) loops. */
    const afterOperator = (): StepOutcome<never> | undefined => {
      const action = ctx.pending.action;
      ctx.pending.action = undefined;
      if (ctx.cancelled()) {
        endWait();
        return { kind: 'cancelled' };
      }
      if (action === 'resolve') {
        endWait();
        status.recoveryPoints.push({ step, at: new Date().toISOString(), how: 'resolved' });
        return { kind: 'resolved' };
      }
      return undefined;
    };

    for (;;) {
      ctx.setStep(running);
      try {
        const value = await call();
        endWait();
        status.recoveryPoints.push({ step, at: new Date().toISOString(), how: 'done' });
        return { kind: 'done', value };
      } catch (err) {
        if (businessFailureOf(err)) {
          endWait();
          throw err;
        }
        const current = patched(TRANSIENT_WAITS_PATCH);
        const cause = describeFailure(err);
        const now = Date.now();
        const transient = current ? transientCauseOf(err, knownWindowMs) : undefined;
        if (transient) {
          knownWindowMs = transient.windowMs;
          episode ??= { sinceMs: now, attempts: 0 };
          episode.attempts += FAST_PHASE_ATTEMPTS;
          const left = episode.sinceMs + transient.windowMs - now;
          if (left > 0) {
            const delay = Math.min(
              left,
              Math.max(SLOW_PHASE_INTERVAL_MS, transient.retryAfterMs ?? 0),
            );
            status.waiting = {
              step,
              cause,
              since: iso(episode.sinceMs),
              attempt: episode.attempts,
              nextTryAt: iso(now + delay),
            };
            ctx.setStep('waiting');
            updateMemo({
              state: 'waiting',
              ...status.waiting,
              action: waitingActionOf(status, step, iso(episode.sinceMs + transient.windowMs)),
            });
            await condition(() => ctx.pending.action !== undefined || ctx.cancelled(), delay);
            status.waiting = undefined;
            const ended = afterOperator();
            if (ended) return ended;
            continue;
          }
        }
        // Permanent, unknown, or the window is spent: park with the cause.
        const attempt = episode?.attempts;
        const since = iso(episode?.sinceMs ?? now);
        status.parked = { step, error: cause, since };
        ctx.setStep('needs_attention');
        if (current)
          endWait({
            state: 'parked',
            step,
            cause,
            since,
            attempt,
            action: parkedActionOf(status, step),
          });
        await condition(() => ctx.pending.action !== undefined || ctx.cancelled());
        status.parked = undefined;
        const ended = afterOperator();
        if (ended) return ended;
        // Retried by an operator: the memo no longer says parked; a new episode starts.
        updateMemo(undefined);
      }
    }
  };
}

/**
 * Runs a call that has no operator to park for (the cancellation workflow's compensation):
 * transient causes are waited out as in runStep (a durable timer between fast phases, the
 * same key) for the window the failure carries; anything else, or a spent window, throws.
 */
export async function retryTransient<T>(call: () => Promise<T>): Promise<T> {
  let sinceMs: number | undefined;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      const transient = transientCauseOf(err);
      if (!transient || !patched(TRANSIENT_WAITS_PATCH)) throw err;
      sinceMs ??= Date.now();
      const left = sinceMs + transient.windowMs - Date.now();
      if (left <= 0) throw err;
      await sleep(Math.min(left, Math.max(SLOW_PHASE_INTERVAL_MS, transient.retryAfterMs ?? 0)));
    }
  }
}
