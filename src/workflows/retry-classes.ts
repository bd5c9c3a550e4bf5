// The two retry classes of a step, declared once: `foreign` (a provider over HTTP: transient
// causes wait, fast then slow, anything else parks) and `own` (our own database: a short
// budget, then park). Budgets are explicit: when one is spent the run parks in needs_attention
// instead of guessing. Workflow code.
import {
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
 * Pause between rounds of the slow phase (a durable timer in the workflow, then another fast
 * phase), as long as the transient window lasts. Long enough not to hammer a provider that is
 * down, short enough that runs resume within half a minute of its return. Also outlasts the
 * sandbox's 10 s lease, so a retry that met 409 gets the first request's stored response.
 */
export const SLOW_PHASE_INTERVAL_MS = 30_000;

/**
 * Foreign effects over HTTP: the fast phase of Temporal's "fast/slow retries" pattern. A few
 * attempts in a few seconds absorb a blip; when they fail on a transient cause the step runner
 * waits SLOW_PHASE_INTERVAL_MS on a timer and runs another fast phase (one activity, a handful
 * of events per round: history stays small over an hour). A provider's Retry-After arrives as
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
 * down is the environment's fault, not the run's: the step runner waits it out on durable
 * timers for the transient window (a bound), then parks the run for an operator.
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
 * The activity options of one call: its class's budget, the step's own business failures as
 * non-retryable (never another step's), and the step's own timeouts.
 */
export function activityOptionsOf(
  retry: RetryClass | 'settle',
  call: { nonRetryable?: readonly string[]; timeouts?: StepTimeouts },
): ActivityOptions {
  const base =
    retry === 'settle'
      ? SETTLE_BUDGET
      : retry === 'foreign'
        ? foreignBudget(call.nonRetryable)
        : ownBudget(call.nonRetryable);
  return {
    ...base,
    ...(call.timeouts?.timeout !== undefined ? { startToCloseTimeout: call.timeouts.timeout } : {}),
    ...(call.timeouts?.heartbeat !== undefined
      ? { heartbeatTimeout: call.timeouts.heartbeat }
      : {}),
  } as ActivityOptions;
}
