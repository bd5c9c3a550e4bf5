/**
 * Runs tasks with at most `limit` in flight (at least one). Resolves when all settled; rejects
 * with the first error after the rest have settled, so no task is left running unobserved.
 */
export async function runLimited(
  tasks: ReadonlyArray<() => Promise<void>>,
  limit: number,
): Promise<void> {
  let next = 0;
  let firstError: unknown;
  const lane = async () => {
    while (next < tasks.length) {
      const task = tasks[next++]!;
      try {
        await task();
      } catch (err) {
        firstError ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, lane));
  if (firstError !== undefined) throw firstError;
}

/**
 * runLimited over a list: `fn(item, index)` for each item, at most `limit` at a time. Enough
 * to read or signal hundreds of runs quickly without opening hundreds of requests at once.
 */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  await runLimited(
    items.map((item, index) => () => fn(item, index)),
    limit,
  );
}
