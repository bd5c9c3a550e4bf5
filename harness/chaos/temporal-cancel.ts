// The `temporal-cancel` fault: operators cancelling orders, payouts and carts through Temporal itself,
// the request the Web UI's "Request Cancellation" sends: a few runs one by one, and a few more
// in one batch job (the Web UI's Batch page). Each must unwind as the saga's own cancel does;
// reconcile then judges them as cancelled by their claims (no net charge, stock back, a
// transfer reversed once, every line of a cart released).
import type { Client } from '@temporalio/client';
import { runBatch } from '../../src/ops/batch-operation';
import { SEARCH_ATTRIBUTE } from '../../src/temporal/search-attributes';
import { createPrng } from '../../src/util/prng';

/** Runs one `temporal-cancel` fault cancels: half one by one, half in one batch. */
export const CANCELS_PER_FAULT = 6;

/** What the fault needs: the run's client and entity prefix, the seed and the fault's time. */
export interface TemporalCancelContext {
  client: Client;
  prefix: string;
  seed: number;
  atMs: number;
}

/** Cancels running orders, payouts and carts of the run through Temporal; says how many of which. */
export async function cancelThroughTemporal(ctx: TemporalCancelContext): Promise<string> {
  const query =
    `${SEARCH_ATTRIBUTE.entityId.name} STARTS_WITH '${ctx.prefix}' AND ExecutionStatus = 'Running'` +
    ` AND WorkflowType IN ('orderFulfillment', 'payout', 'cart')`;
  const running: Array<{ workflowId: string; runId: string; type: string }> = [];
  for await (const info of ctx.client.workflow.list({ query }))
    running.push({ workflowId: info.workflowId, runId: info.runId, type: info.type });
  // Seeded picks from a stable order, so a failing seed cancels the same runs again.
  running.sort((a, b) => a.workflowId.localeCompare(b.workflowId));
  const rnd = createPrng(ctx.seed ^ ctx.atMs);
  const picked: typeof running = [];
  while (picked.length < CANCELS_PER_FAULT && running.length > 0)
    picked.push(...running.splice(Math.floor(rnd() * running.length), 1));
  const half = Math.ceil(picked.length / 2);
  const single = picked.slice(0, half);
  const batched = picked.slice(half);
  await Promise.all(
    single.map((r) => ctx.client.workflow.getHandle(r.workflowId, r.runId).cancel()),
  );
  if (batched.length > 0)
    await runBatch(ctx.client, {
      verb: 'chaos-cancel',
      reason: 'chaos: an operator cancels through Temporal',
      targets: batched,
      operation: { cancellationOperation: { identity: 'chaos' } },
      label: 'cancel',
    });
  const of = (type: string) => picked.filter((r) => r.type === type).length;
  return `cancelled ${picked.length} run(s) through Temporal (${of('orderFulfillment')} order(s), ${of('payout')} payout(s), ${of('cart')} cart(s); ${batched.length} in a batch)`;
}
