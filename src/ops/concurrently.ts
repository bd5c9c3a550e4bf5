/**
 * Runs `fn` over `items` with at most `concurrency` calls in flight: enough to read or
 * signal hundreds of runs quickly without opening hundreds of requests at once.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      await fn(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, lane));
}
