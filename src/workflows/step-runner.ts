// How a step retries, waits and parks, for every domain. Transient provider causes (the
// provider down, timeouts, 429, 5xx, 409 in flight) are the "fast/slow retries" pattern: the
// activity's own retry policy is the fast phase (src/workflows/retry-classes.ts), then this
// runner waits on a durable timer and runs another fast phase, with the same idempotency key,
// until the worker's transient window is spent; only then does the step park. Anything else
// that is not a business outcome parks at once (a 422, another 4xx, an unknown error). A
// parked step waits for an operator: retryStep, resolveStep or the cancellation. Steps may run
// at once; each waits and parks on its own (stalls.ts). Workflow code.
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
import { visibleStep, type Stalls } from './stalls';

export type StepOutcome<T> =
  { kind: 'done'; value: T } | { kind: 'resolved'; value?: unknown } | { kind: 'cancelled' };

export interface StepRunnerContext {
  runtime: SagaRuntime;
  display: SagaDisplay;
  status: SagaStatus;
  setStep(step: string): void;
  /** The stalled steps and the operator's requests for them; the runner consumes requests. */
  stalls: Stalls;
  cancelled(): boolean;
  /** Records that an operator's resolve of `step` was refused, and why. */
  refuse(step: string, reason: string): void;
  /**
   * False on runs recorded before transient waits existed: they parked on every failure and
   * kept no memo (orders: `patched('transient-waits-and-attention-memo')`). Asked at each
   * failure, where those runs asked. Default: always true (no marker).
   */
  transientWaits?: () => boolean;
}

/** How one step is run: its call, business failures, and what a resolve must check first. */
export interface StepRun<T> {
  step: string;
  /** What the status says while it runs. */
  running: string;
  call: () => Promise<T>;
  /** Business failure types: thrown to the saga instead of parking. */
  failures?: readonly string[];
  /**
   * Run when an operator resolves the step: its value is the step's; a throw refuses the
   * resolve (the step stays parked) with the error as the reason.
   */
  verifyResolve?: () => Promise<unknown>;
}

/** runStep for one run; keeps the memo (`attention`, `waited`) in step with its stalls. */
export function createStepRunner(ctx: StepRunnerContext) {
  const { status, runtime, display, stalls } = ctx;
  const iso = (ms: number) => new Date(ms).toISOString();
  /** Each stalled step's attention; the memo shows the latest. */
  const attentions = new Map<string, Attention>();
  let attentionSet = false;
  const waited: WaitedMemo = { totalMs: 0, maxMs: 0 };

  /**
   * One memo upsert: the step's new attention (or its removal, only if one was set, so a run
   * that never waited records no memo command) and, when a wait ends, the waited totals.
   */
  function updateMemo(step: string, attention: Attention | undefined, endedWaitMs?: number) {
    if (attention) attentions.set(step, attention);
    else attentions.delete(step);
    const shown = attention ?? [...attentions.values()].pop();
    const memo: Record<string, unknown> = {};
    if (shown || attentionSet) memo[ATTENTION_MEMO] = shown;
    if (endedWaitMs !== undefined) {
      waited.totalMs += endedWaitMs;
      waited.maxMs = Math.max(waited.maxMs, endedWaitMs);
      memo[WAITED_MEMO] = { ...waited };
    }
    attentionSet = shown !== undefined;
    if (Object.keys(memo).length > 0) runtime.upsertMemo(memo);
  }

  /** Leaves the stall: the step's own waiting/parked status only, another step's stays. */
  function unstall(step: string) {
    stalls.current.delete(step);
    if (status.waiting?.step === step) status.waiting = undefined;
    if (status.parked?.step === step) status.parked = undefined;
  }

  /**
   * Runs one step: `call` until it succeeds, a business failure of `failures` ends it (thrown
   * to the saga), an operator resolves it, or the run is cancelled while it waits or parks.
   */
  return async function runStep<T>(run: StepRun<T>): Promise<StepOutcome<T>> {
    const { step, running, call, failures = [] } = run;
    /** The current wait episode: since the step's first transient failure. */
    let episode: { sinceMs: number; attempts: number } | undefined;
    let knownWindowMs: number | undefined;
    const endWait = (attention?: Attention) => {
      const ms = episode ? runtime.now() - episode.sinceMs : undefined;
      episode = undefined;
      updateMemo(step, attention, ms);
    };
    /**
     * After a wait or park: cancel and resolve end the step, a refused resolve keeps it where
     * it is, retry (or a timer) runs it again.
     */
    const afterOperator = async (): Promise<StepOutcome<never> | 'again' | 'refused'> => {
      const request = stalls.pending.get(step);
      stalls.pending.delete(step);
      if (ctx.cancelled()) {
        unstall(step);
        endWait();
        return { kind: 'cancelled' };
      }
      if (request?.action !== 'resolve') return 'again';
      let value = request.result;
      if (run.verifyResolve) {
        try {
          value = await run.verifyResolve();
        } catch (err) {
          ctx.refuse(step, describeFailure(err));
          return 'refused';
        }
      }
      unstall(step);
      endWait();
      status.recoveryPoints.push({ step, at: iso(runtime.now()), how: 'resolved' });
      return value === undefined ? { kind: 'resolved' } : { kind: 'resolved', value };
    };
    const until = () => stalls.pending.has(step) || ctx.cancelled();

    for (;;) {
      ctx.setStep(visibleStep(stalls, running));
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
            stalls.current.set(step, 'waiting');
            ctx.setStep(visibleStep(stalls, 'waiting'));
            const deadline = iso(episode.sinceMs + transient.windowMs);
            updateMemo(step, {
              state: 'waiting',
              ...status.waiting,
              action: waitingActionOf(display, status, step, deadline),
            });
            // The timer says in the Web UI's timeline what it waits for.
            await runtime.condition(
              until,
              delay,
              `${step}: wait for ${display.counterpart(step)}, next try at ${status.waiting.nextTryAt}`,
            );
            for (;;) {
              const ended = await afterOperator();
              if (ended === 'refused') {
                await runtime.condition(until);
                continue;
              }
              if (ended !== 'again') return ended;
              break;
            }
            unstall(step);
            continue;
          }
        }
        // Permanent, unknown, or the window is spent: park with the cause.
        const attempt = episode?.attempts;
        const since = iso(episode?.sinceMs ?? now);
        status.parked = { step, error: cause, since };
        stalls.current.set(step, 'parked');
        ctx.setStep(visibleStep(stalls, 'needs_attention'));
        if (current)
          endWait({
            state: 'parked',
            step,
            cause,
            since,
            attempt,
            action: parkedActionOf(display, status, step),
          });
        for (;;) {
          await runtime.condition(until);
          const ended = await afterOperator();
          if (ended === 'refused') continue;
          if (ended !== 'again') return ended;
          break;
        }
        unstall(step);
        // Retried by an operator: the memo no longer says parked; a new episode starts.
        updateMemo(step, undefined);
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
