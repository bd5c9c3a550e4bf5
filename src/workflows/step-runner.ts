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
import type { RunnerMemo, WaitEpisode } from './run-carry';

export type { WaitEpisode } from './run-carry';

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
  /** The memo state a continued run carried over. */
  memo?: RunnerMemo;
  /**
   * Asked before each new round of a waiting step: throws (ContinueAsNewRequested) when the
   * run should continue as new there, carrying the step's wait episode.
   */
  beforeRound?(step: string, episode: WaitEpisode): void;
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
  /** The wait episode a continued run carried over: the window still counts from its start. */
  episode?: WaitEpisode;
  /** Record no recovery point (the claim's settlement is not a step of the saga). */
  unrecorded?: boolean;
}

/** runStep for one run; keeps the memo (`attention`, `waited`) in step with its stalls. */
export function createStepRunner(ctx: StepRunnerContext) {
  const { status, runtime, display, stalls } = ctx;
  const iso = (ms: number) => new Date(ms).toISOString();
  /** Each stalled step's attention; the memo shows the latest. */
  const attentions = new Map<string, Attention>(
    (ctx.memo?.attentions ?? []) as Array<[string, Attention]>,
  );
  let attentionSet = ctx.memo?.attentionSet ?? false;
  const waited: WaitedMemo = { ...(ctx.memo?.waited ?? { totalMs: 0, maxMs: 0 }) };

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
  const runStep = async function runStep<T>(run: StepRun<T>): Promise<StepOutcome<T>> {
    const { step, running, call, failures = [] } = run;
    /** The current wait episode: since the step's first transient failure. */
    let episode: WaitEpisode | undefined = run.episode && { ...run.episode };
    if (episode) stalls.current.set(step, 'waiting');
    const point = (how: 'done' | 'resolved') => {
      if (!run.unrecorded) status.recoveryPoints.push({ step, at: iso(runtime.now()), how });
    };
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
      point('resolved');
      return value === undefined ? { kind: 'resolved' } : { kind: 'resolved', value };
    };
    const until = () => stalls.pending.has(step) || ctx.cancelled();

    for (;;) {
      // A waiting step's next round keeps Step `waiting` (no attribute write per round).
      ctx.setStep(visibleStep(stalls, running));
      try {
        const value = await call();
        const waited = stalls.current.has(step);
        unstall(step);
        endWait();
        if (waited) ctx.setStep(visibleStep(stalls, running));
        point('done');
        return { kind: 'done', value };
      } catch (err) {
        if (businessFailureOf(err, failures)) {
          endWait();
          throw err;
        }
        const cause = describeFailure(err);
        const now = runtime.now();
        const transient = transientCauseOf(err, episode?.windowMs);
        if (transient) {
          episode ??= { sinceMs: now, attempts: 0 };
          episode.windowMs = transient.windowMs;
          episode.intervalMs = transient.intervalMs ?? episode.intervalMs;
          episode.attempts += FAST_PHASE_ATTEMPTS;
          const left = episode.sinceMs + transient.windowMs - now;
          if (left > 0) {
            const interval = episode.intervalMs ?? SLOW_PHASE_INTERVAL_MS;
            const delay = Math.min(left, Math.max(interval, transient.retryAfterMs ?? 0));
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
            // Another round of the same episode (status and Step still say waiting): the run
            // may continue as new here first.
            ctx.beforeRound?.(step, episode);
            continue;
          }
        }
        // Permanent, unknown, or the window is spent: park with the cause.
        const attempt = episode?.attempts;
        const since = iso(episode?.sinceMs ?? now);
        // The last round's waiting status ends here: the step is parked, not waiting.
        if (status.waiting?.step === step) status.waiting = undefined;
        status.parked = { step, error: cause, since };
        stalls.current.set(step, 'parked');
        ctx.setStep(visibleStep(stalls, 'needs_attention'));
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
  /** The memo state a run carries when it continues as new. */
  const memoState = (): RunnerMemo => ({
    attentions: [...attentions],
    attentionSet,
    waited: { ...waited },
  });
  return Object.assign(runStep, { memoState });
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
