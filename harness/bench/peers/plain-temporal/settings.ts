/** What the plain Temporal system's two processes read beside the peers' environment. */
export function plainSettings(): { temporalAddress: string; taskQueue: string } {
  const taskQueue = process.env.PLAIN_TASK_QUEUE;
  const temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (!taskQueue || !temporalAddress)
    throw new Error('PLAIN_TASK_QUEUE and TEMPORAL_ADDRESS must be set (harness/bench/peers)');
  return { temporalAddress, taskQueue };
}
