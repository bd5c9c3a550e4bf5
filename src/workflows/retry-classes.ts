// The two retry classes of a step, declared once: `foreign` (a provider over HTTP: transient
// causes wait, fast then slow, anything else parks) and `own` (our own database: a short
// budget, then park). Budgets are explicit: when one is spent the run parks in needs_attention
// instead of guessing. Workflow code.
import {
  ActivityCancellationType,
  proxyActivities,
  proxyLocalActivities,
  type ActivityOptions,
  type LocalActivityOptions,
} from '@temporalio/workflow';
import type { Duration } from '@temporalio/common';
import { BUG_FAILURES } from '../activities/failure-types';

/** A step's retry class. */
export type RetryClass = 'foreign' | 'own';

/** Attempts of the fast phase: the activity's own retries (0.5 + 1 + 2 s of backoff). */
export const FAST_PHASE_ATTEMPTS = 4;
/**
 * Pause between attempts of a waiting round (the activity's own retry policy), as long as the
 * transient window lasts, when the failure does not carry the worker's interval. Long enough
 * not to hammer a provider that is down, short enough that runs resume within half a minute
 * of its return. Also outlasts the sandbox's 10 s lease, so a retry that met 409 gets the
 * first request's stored response.
 */
export const SLOW_PHASE_INTERVAL_MS = 30_000;

/**
 * Foreign effects over HTTP: the fast phase of Temporal's "fast/slow retries" pattern. A few
 * attempts in a few seconds absorb a blip; when they fail on a transient cause the step goes on
 * in one waiting round (WaitingRound) for the rest of the window. A provider's Retry-After arrives as
 * the failure's nextRetryDelay. startToClose exceeds the provider client's 5 s timeout.
 * `nonRetryable`: the domain's business failures (a declined card), beside the engine's bugs.
 */
export function foreignBudget(nonRetryable: readonly string[] = []): ActivityOptions {
  return {
    startToCloseTimeout: '15 seconds',
    retry: {
      initialInterval: '500 milliseconds',
      backoffCoefficient: 2,
      maximumInterval: '4 seconds',
      maximumAttempts: FAST_PHASE_ATTEMPTS,
      nonRetryableErrorTypes: [...nonRetryable, ...BUG_FAILURES],
    },
  };
}

/**
 * Our own Postgres: fast, local, transactional. A short budget (about 3 s of backoff) because
 * a database that stays down needs an operator, not more attempts; for regular and local
 * activities alike. `nonRetryable`: the domain's business failures (out of stock).
 */
export function ownBudget(nonRetryable: readonly string[] = []): ActivityOptions {
  return {
    startToCloseTimeout: '10 seconds',
    retry: {
      initialInterval: '200 milliseconds',
      backoffCoefficient: 2,
      maximumInterval: '2 seconds',
      maximumAttempts: 5,
      nonRetryableErrorTypes: [...nonRetryable],
    },
  };
}

/**
 * The settlement of a claim: one UPDATE, as a local activity (a marker in the workflow task
 * that ends the run, no activity task round trip), the `own` budget. Our own database being
 * down is the environment's fault, not the run's: the settlement waits it out in a waiting
 * round (a regular activity) for the transient window (a bound), then parks for an operator.
 */
export const SETTLE_BUDGET: LocalActivityOptions = ownBudget();

/** Activities of one retry class, as regular activities (a domain module declares them once). */
export function proxyForeign<A extends object>(nonRetryable?: readonly string[]) {
  return proxyActivities<A>(foreignBudget(nonRetryable));
}

/** Activities on our own database, as regular activities. */
export function proxyOwn<A extends object>(nonRetryable?: readonly string[]) {
  return proxyActivities<A>(ownBudget(nonRetryable));
}

/**
 * Activities on our own database as local activities: run by the worker inside the workflow
 * task that schedules them, recorded as markers, no activity task round trip on the server.
 * Only for calls that are safe to run again (a worker dying before the task completes runs
 * them again): idempotent by their key.
 */
export function proxyOwnLocal<A extends object>(nonRetryable?: readonly string[]) {
  return proxyLocalActivities<A>(ownBudget(nonRetryable));
}

/** A step's own timeouts, over its class's (the provider it calls decides what is long). */
export interface StepTimeouts {
  /**
   * How long one attempt may take. Default: the class's (`foreign` 15 s, `own` 10 s).
   * @example timeout: '2 minutes'
   */
  timeout?: Duration;
  /**
   * How long the activity may go without a heartbeat before the attempt counts as failed
   * (the activity calls `heartbeat()` from @temporalio/activity). Default: none.
   * @example heartbeat: '10 seconds'
   */
  heartbeat?: Duration;
}

/**
 * The waiting round of a step whose fast phase met a transient cause: ONE activity whose own
 * retry policy tries again every `intervalMs` (the worker's interval, or a provider's
 * Retry-After, which arrives as the failure's nextRetryDelay) until `leftMs` (what is left of
 * the transient window) has passed. Its attempts write no history events, so a wait of a day
 * costs the run the same few events as a wait of a minute: the run's history is bounded by
 * construction, with no continue-as-new. A cancel of the round (the run unwinds, an operator
 * retries or resolves) stops further attempts at once; an attempt in flight finishes first
 * (the activity's default WAIT_CANCELLATION_COMPLETED), so its outcome is never guessed.
 */
export interface WaitingRound {
  leftMs: number;
  intervalMs: number;
}

/** The activity options of one call: its class's budget, or a waiting round's. */
export function activityOptionsOf(
  retry: RetryClass | 'settle',
  call: { nonRetryable?: readonly string[]; timeouts?: StepTimeouts; round?: WaitingRound },
): ActivityOptions {
  const base =
    retry === 'settle'
      ? SETTLE_BUDGET
      : retry === 'foreign'
        ? foreignBudget(call.nonRetryable)
        : ownBudget(call.nonRetryable);
  const round = call.round;
  return {
    ...base,
    // Said explicitly: an option left out reaches Temporal as TRY_CANCEL (the proto's zero),
    // which would end the call at once while its attempt may still act (the unwind would then
    // race the forward effect). The run never guesses an outcome: the attempt finishes first.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    ...(round
      ? {
          scheduleToCloseTimeout: Math.max(1, Math.round(round.leftMs)),
          retry: {
            initialInterval: round.intervalMs,
            backoffCoefficient: 1,
            maximumInterval: round.intervalMs,
            nonRetryableErrorTypes: base.retry?.nonRetryableErrorTypes ?? [],
          },
        }
      : {}),
    ...(call.timeouts?.timeout !== undefined ? { startToCloseTimeout: call.timeouts.timeout } : {}),
    ...(call.timeouts?.heartbeat !== undefined
      ? { heartbeatTimeout: call.timeouts.heartbeat }
      : {}),
  } as ActivityOptions;
}
