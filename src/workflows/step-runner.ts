// How a step retries, waits and parks, for every domain. Transient provider causes (the
// provider down, timeouts, 429, 5xx, 409 in flight) are the "fast/slow retries" pattern: the
// activity's own retry policy is the fast phase (src/workflows/retry-classes.ts), then this
// runner waits on a durable timer and runs another fast phase, with the same idempotency key,
// until the worker's transient window is spent; only then does the step park. Anything else
// that is not a business outcome parks at once (a 422, another 4xx, an unknown error). A
// parked step waits for an operator: retryStep, resolveStep or the cancellation. Workflow code.
import type { SagaDisplay } from './details';
import { parkedActionOf, waitingActionOf } from './details';
import { businessFailureOf, describeFailure, transientCauseOf } from './failures';
import { FAST_PHASE_ATTEMPTS, SLOW_PHASE_INTERVAL_MS } from './retry-classes';
import type { SagaRuntime } from './saga-runtime';
import {
  ATTENTION_MEMO,
  WAITED_MEMO,
  type Attention,
  type SagaStatus,
  type WaitedMemo,
} from './saga-status';

export type StepOutcome<T> =
  { kind: 'done'; value: T } | { kind: 'resolved' } | { kind: 'cancelled' };

export interface StepRunnerContext {
  runtime: SagaRuntime;
  display: SagaDisplay;
  status: SagaStatus;
  setStep(step: string): void;
  /** The operator's latest retry/resolve request; the runner consumes it. */
  pending: { action?: 'retry' | 'resolve' };
  cancelled(): boolean;
  /**
   * False on runs recorded before transient waits existed: they parked on every failure and
   * kept no memo (orders: `patched('transient-waits-and-attention-memo')`). Asked at each
   * failure, where those runs asked. Default: always true (no marker).
   */
  transientWaits?: () => boolean;
}

/** runStep for one run; keeps the memo (`attention`, `waited`) in step with it. */
export function createStepRunner(ctx: StepRunnerContext) {
  const { status, runtime, display } = ctx;
  const iso = (ms: number) => new Date(ms).toISOString();
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
    if (Object.keys(memo).length > 0) runtime.upsertMemo(memo);
  }

  /**
   * Runs one step: `call` until it succeeds, a business failure of `failures` ends it (thrown
   * to the saga), an operator resolves it, or the run is cancelled while it waits or parks.
   */
  return async function runStep<T>(
    step: string,
    running: string,
    call: () => Promise<T>,
    failures: readonly string[] = [],
  ): Promise<StepOutcome<T>> {
    /** The current wait episode: since the step's first transient failure. */
    let episode: { sinceMs: number; attempts: number } | undefined;
    let knownWindowMs: number | undefined;
    const endWait = (attention?: Attention) => {
      const ms = episode ? runtime.now() - episode.sinceMs : undefined;
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
        status.recoveryPoints.push({ step, at: iso(runtime.now()), how: 'resolved' });
        return { kind: 'resolved' };
      }
      return undefined;
    };

    for (;;) {
      ctx.setStep(running);
      try {
        const value = await call();
        endWait();
        status.recoveryPoints.push({ step, at: iso(runtime.now()), how: 'done' });
        return { kind: 'done', value };
      } catch (err) {
        if (businessFailureOf(err, failures)) {
          endWait();
          throw err;
        }
        const current = ctx.transientWaits?.() ?? true;
        const cause = describeFailure(err);
        const now = runtime.now();
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
            const deadline = iso(episode.sinceMs + transient.windowMs);
            updateMemo({
              state: 'waiting',
              ...status.waiting,
              action: waitingActionOf(display, status, step, deadline),
            });
            await runtime.condition(
              () => ctx.pending.action !== undefined || ctx.cancelled(),
              delay,
            );
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
            action: parkedActionOf(display, status, step),
          });
        await runtime.condition(() => ctx.pending.action !== undefined || ctx.cancelled());
        status.parked = undefined;
        const ended = afterOperator();
        if (ended) return ended;
        // Retried by an operator: the memo no longer says parked; a new episode starts.
        updateMemo(undefined);
      }
    }
  };
}

/** What one saga's runStep is. */
export type RunStep = ReturnType<typeof createStepRunner>;

/**
 * Runs a call that has no operator to park for (a cancellation workflow's compensation):
 * transient causes are waited out as in runStep (a durable timer between fast phases, the
 * same key) for the window the failure carries; anything else, or a spent window, throws.
 * `transientWaits` as in StepRunnerContext.
 */
export async function retryTransient<T>(
  runtime: Pick<SagaRuntime, 'sleep' | 'now'>,
  call: () => Promise<T>,
  transientWaits: () => boolean = () => true,
): Promise<T> {
  let sinceMs: number | undefined;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      const transient = transientCauseOf(err);
      if (!transient || !transientWaits()) throw err;
      sinceMs ??= runtime.now();
      const left = sinceMs + transient.windowMs - runtime.now();
      if (left <= 0) throw err;
      await runtime.sleep(
        Math.min(left, Math.max(SLOW_PHASE_INTERVAL_MS, transient.retryAfterMs ?? 0)),
      );
    }
  }
}
