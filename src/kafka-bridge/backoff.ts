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

/** Thrown by retryTransient when the caller stopped (shutdown, lost partition) mid-retry. */
export class RetryAbortedError extends Error {
  override readonly name = 'RetryAbortedError';
  constructor(
    readonly what: string,
    readonly lastError: unknown,
  ) {
    super(`gave up retrying ${what}: stopping (last error: ${(lastError as Error)?.message})`);
  }
}

export interface RetryTransientOptions {
  /** Named in logs and errors, e.g. "temporal start". */
  what: string;
  /** False stops the retrying (the work is left undone, so its offset is not committed). */
  shouldContinue: () => boolean;
  /** Called while waiting, so the consumer group does not evict us during an outage. */
  heartbeat: () => Promise<void>;
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  backoff?: BackoffOptions;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `fn` until it succeeds. Every error is taken as the dependency being unavailable:
 * callers turn message-specific failures into results before they reach here, so what is
 * left is never the message's fault and must not be dead-lettered.
 */
export async function retryTransient<T>(
  fn: () => Promise<T>,
  options: RetryTransientOptions,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!options.shouldContinue()) throw new RetryAbortedError(options.what, err);
      const delay = backoffDelay(attempt, options.backoff);
      options.onRetry?.(err, attempt, delay);
      const until = Date.now() + delay;
      while (Date.now() < until) {
        if (!options.shouldContinue()) throw new RetryAbortedError(options.what, err);
        await options.heartbeat().catch(() => undefined);
        await pause(Math.min(500, until - Date.now()));
      }
    }
  }
}
