import { classifyError, describeError, type ErrorClassification } from './classify-error';

/** Capped exponential backoff with jitter, for dependencies that are down (not for poison). */
export interface BackoffOptions {
  /** First delay. Default: 200 ms. */
  initialMs?: number;
  /** Largest delay. Default: 10 s. */
  maxMs?: number;
  /** Growth per attempt. Default: 2. */
  factor?: number;
}

/**
 * Delay before retry number `attempt` (0-based): half of the capped exponential value fixed,
 * half random, so many partitions retrying at once do not hit a recovering service in step.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const { initialMs = 200, maxMs = 10_000, factor = 2 } = options;
  const capped = Math.min(maxMs, initialMs * factor ** attempt);
  return capped / 2 + random() * (capped / 2);
}

/** Thrown by retryClassified (and waitWithHeartbeat) when the caller stopped (shutdown, lost partition) mid-retry. */
export class RetryAbortedError extends Error {
  override readonly name = 'RetryAbortedError';
  constructor(
    readonly what: string,
    readonly lastError: unknown,
  ) {
    super(`gave up retrying ${what}: stopping (last error: ${describeError(lastError)})`);
  }
}

/**
 * Thrown by retryClassified when an error that is not transient (the message's fault, a bug,
 * or unknown) failed `attempts` times: the caller dead-letters the message with this cause.
 */
export class RetriesExhaustedError extends Error {
  override readonly name = 'RetriesExhaustedError';
  constructor(
    readonly what: string,
    readonly attempts: number,
    readonly classification: ErrorClassification,
    cause: unknown,
  ) {
    super(
      `${what} failed ${attempts} times with a ${classification.kind} error` +
        `${classification.code ? ` (${classification.source} ${classification.code})` : ''}: ${describeError(cause)}`,
      { cause },
    );
  }
}

export interface RetryOptions {
  /** Named in logs and errors, e.g. "temporal start". */
  what: string;
  /** False stops the retrying (the work is left undone, so its offset is not committed). */
  shouldContinue: () => boolean;
  /** Called while waiting, so the consumer group does not evict us during an outage. */
  heartbeat: () => Promise<void>;
  onRetry?: (
    err: unknown,
    classification: ErrorClassification,
    attempt: number,
    delayMs: number,
  ) => void;
  backoff?: BackoffOptions;
  /**
   * Tries allowed for errors that are not transient before RetriesExhaustedError. Default: 3.
   * Infinity retries everything (for a write that must not be given up, e.g. a stub DLQ record).
   */
  maxAttempts?: number;
  /** Default: classifyError. */
  classify?: (err: unknown) => ErrorClassification;
}

/** Default number of tries of a non-transient failure before the message is dead-lettered. */
export const DEFAULT_MAX_ATTEMPTS = 3;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits `delayMs`, heartbeating; throws RetryAbortedError as soon as the caller stops. */
export async function waitWithHeartbeat(
  delayMs: number,
  options: Pick<RetryOptions, 'what' | 'shouldContinue' | 'heartbeat'>,
  lastError: unknown,
): Promise<void> {
  const until = Date.now() + delayMs;
  do {
    if (!options.shouldContinue()) throw new RetryAbortedError(options.what, lastError);
    // A failed heartbeat (rebalance) shows in shouldContinue; the wait itself goes on.
    await options.heartbeat().catch(() => undefined);
    if (!options.shouldContinue()) throw new RetryAbortedError(options.what, lastError);
    await pause(Math.max(0, Math.min(500, until - Date.now())));
  } while (Date.now() < until);
}

/**
 * Runs `fn` until it succeeds, by the classification of each error (classify-error.ts):
 * a transient error (a dependency down) is retried with backoff for as long as the caller
 * continues; any other error, including an unknown one, is retried at most `maxAttempts`
 * times in all and then thrown as RetriesExhaustedError, so it is never taken for an outage
 * forever. Throws RetryAbortedError when the caller stops meanwhile.
 */
export async function retryClassified<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  const classify = options.classify ?? classifyError;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let failures = 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof RetryAbortedError) throw err;
      const classification = classify(err);
      if (classification.kind !== 'transient' && ++failures >= maxAttempts) {
        throw new RetriesExhaustedError(options.what, failures, classification, err);
      }
      if (!options.shouldContinue()) throw new RetryAbortedError(options.what, err);
      const delay = backoffDelay(attempt, options.backoff);
      options.onRetry?.(err, classification, attempt, delay);
      await waitWithHeartbeat(delay, options, err);
    }
  }
}
