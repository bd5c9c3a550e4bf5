/** Options for waitFor. */
export interface WaitOptions {
  /** Give up after this many ms. */
  timeoutMs: number;
  /** Pause between attempts. Default: 200 ms. */
  intervalMs?: number;
  /** Named in the timeout error. */
  what: string;
}

export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
    readonly lastError: unknown,
  ) {
    super(
      `timed out after ${timeoutMs} ms waiting for ${what}` +
        (lastError ? `: ${(lastError as Error).message ?? String(lastError)}` : ''),
    );
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `check` until it returns a value other than undefined/false, or throws at the
 * deadline. A check that throws counts as "not yet"; its last error is reported.
 */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  options: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline)
      throw new WaitTimeoutError(options.what, options.timeoutMs, lastError);
    await pause(options.intervalMs ?? 200);
  }
}
