// How the step runner reads an activity's failure: a business outcome, a transient cause to
// wait out, or anything else (park). Pure apart from the SDK's failure classes.
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import {
  TRANSIENT_FAILURE_TYPES,
  isTransientFailureDetails,
} from '../activities/transient-failure';

/**
 * The business failure type behind an activity failure, if it is one of `types`. A regular
 * activity's failure arrives as an ActivityFailure around the ApplicationFailure; a local
 * activity's may arrive as the ApplicationFailure itself.
 */
export function businessFailureOf(err: unknown, types: readonly string[]): string | undefined {
  if (types.length === 0) return;
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (!(cause instanceof ApplicationFailure)) return;
  const type = cause.type ?? '';
  return types.includes(type) ? type : undefined;
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
  /** The pause between a waiting round's attempts (the worker's setting), when carried. */
  intervalMs?: number;
}

/**
 * The window for an activity timeout before any provider failure of this step has told the
 * worker's configured one: ORDER_TRANSIENT_RETRY_WINDOW's default. A timeout means a worker
 * died or was starved mid-call; the same key makes the retry safe, and parking a run for a
 * busy worker would turn load into operator work.
 */
export const TIMEOUT_FALLBACK_WINDOW_MS = 60 * 60 * 1000;

/**
 * The transient cause behind an activity failure, or undefined (park). The window comes with
 * the failure from the worker's configuration; an activity timeout (a worker died or hung
 * mid-call) uses the window this step has learned, else TIMEOUT_FALLBACK_WINDOW_MS.
 */
export function transientCauseOf(err: unknown, knownWindowMs?: number): TransientCause | undefined {
  // A regular activity's failure wraps its cause; a local activity's may be the cause itself.
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof TimeoutFailure && err instanceof ActivityFailure)
    return { windowMs: knownWindowMs ?? TIMEOUT_FALLBACK_WINDOW_MS };
  if (!(cause instanceof ApplicationFailure)) return;
  if (!(TRANSIENT_FAILURE_TYPES as readonly string[]).includes(cause.type ?? '')) return;
  const details: unknown = cause.details?.[0];
  if (!isTransientFailureDetails(details)) return;
  return {
    windowMs: details.windowMs,
    retryAfterMs: details.retryAfterMs,
    ...(details.intervalMs !== undefined ? { intervalMs: details.intervalMs } : {}),
  };
}
