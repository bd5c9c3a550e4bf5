/**
 * Runs tasks with at most `limit` in flight. Resolves when all settled; rejects with the
 * first error after the rest have settled, so no task is left running unobserved.
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
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
  if (firstError !== undefined) throw firstError;
}
