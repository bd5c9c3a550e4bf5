/**
 * A sample of payouts through a drain's running bridge and worker, for the shape of a payout's
 * history. Not timed: the drain's figures are the orders'.
 */
import { waitFor } from '../../src/util/wait';
import { payoutRequestedRoute } from '../../src/domains/payouts/routes';
import type { Component } from '../pipeline/components';
import { generatePayoutStream } from '../tools/payout-stream';
import type { BenchContext } from './bridge';
import { readHistoryShape, type HistoryShape } from './history-shape';

/**
 * Sends `payouts` happy payouts (below the approval amount) through the running bridge and
 * worker, waits for their runs to complete and reads their histories.
 */
export async function samplePayouts(
  ctx: BenchContext,
  o: { topic: string; taskQueue: string; prefix: string; payouts: number; alive: Component[] },
): Promise<HistoryShape> {
  const stream = generatePayoutStream({ payouts: o.payouts, prefix: `${o.prefix}-payout` });
  const producer = ctx.kafka.producer();
  await producer.connect();
  try {
    await producer.send({ topic: o.topic, acks: -1, messages: stream.records });
  } finally {
    await producer.disconnect();
  }
  const query = `TaskQueue = '${o.taskQueue}' AND WorkflowType = '${payoutRequestedRoute.workflowType}' AND ExecutionStatus = 'Completed'`;
  await waitFor(
    async () => {
      const dead = o.alive.find((c) => c.child.exitCode !== null);
      if (dead) throw new Error(`${dead.name} exited; see ${dead.logFile}`);
      return (await ctx.client.workflow.count(query)).count >= o.payouts;
    },
    { timeoutMs: 300_000, intervalMs: 500, what: `${o.payouts} payouts completed` },
  );
  return readHistoryShape(ctx.client, o.taskQueue, payoutRequestedRoute.workflowType);
}
