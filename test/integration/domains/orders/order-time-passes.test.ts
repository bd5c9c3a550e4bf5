import { strict as assert } from 'node:assert';
import { deleteRun, expireProviderKeys } from '../../../../harness/chaos/forget';
import { createLedgerStore } from '../../../../src/db/ledger-store';
import { findOrderClaim } from '../../../../src/domains/orders/order-claim-store';
import { waitFor } from '../../../../src/util/wait';
import type { OrderCancellationResult } from '../../../../src/domains/orders/workflows/order-cancellation';
import type { OrderResult } from '../../../../src/domains/orders/workflows/order-definitions';
import { runOps } from '../../../support/ops-cli';
import { TEST_ADMIN_TOKEN } from '../../../support/providers';
import { uniqueName } from '../../../support/services';
import { OrderPipeline } from './order-pipeline';

/**
 * Issue 23, first row: the claim outlives every other memory. Through the real pipeline
 * (Kafka → bridge → Temporal → worker → Postgres and the sandbox providers) an order ends; then
 * its ledger rows are reaped, its runs are deleted from Temporal (as namespace retention does)
 * and the provider forgets its keys (as Stripe does after 24 h); then the bridge's consumer
 * group is reset and the whole topic is read again. The same event starts a new run under the
 * SAME workflow ID; only the claim can tell it is not the owner.
 */
describe('the order claim outlives every other memory (real Kafka, bridge, Temporal, Postgres, providers)', function () {
  this.timeout(300_000);
  let p: OrderPipeline;
  before(async () => {
    p = await new OrderPipeline().setUp();
  });
  after(async () => {
    await p?.tearDown();
  });

  /** The ledger rows of the order past LEDGER_RETENTION_DAYS, then the reaper as cron runs it. */
  async function reapLedgerOf(orderId: string): Promise<void> {
    const { rowCount } = await p.db.pool.query(
      `UPDATE processed_events SET first_seen_at = now() - interval '40 days'
        WHERE aggregate_id = $1`,
      [orderId],
    );
    assert.ok((rowCount ?? 0) >= 1, 'the order has ledger rows to reap');
    await createLedgerStore(p.db.pool, { schema: p.db.schema }).reapOlderThan(30);
    const { rows } = await p.db.pool.query(
      'SELECT 1 FROM processed_events WHERE aggregate_id = $1',
      [orderId],
    );
    assert.equal(rows.length, 0, 'the ledger forgot the order');
  }

  /** Every memory but the claim forgets the order; returns the deleted runs' IDs. */
  async function letTimePass(orderId: string, workflowIds: string[]): Promise<string[]> {
    await reapLedgerOf(orderId);
    const deleted = [];
    for (const workflowId of workflowIds) deleted.push(await deleteRun(p.h.client, workflowId));
    const forgotten = await expireProviderKeys(p.providers.url, TEST_ADMIN_TOKEN, {
      prefix: `order:${orderId}:`,
    });
    assert.ok(forgotten >= 2, `the provider forgot the order's keys (${forgotten})`);
    return deleted;
  }

  /** The run of `workflowId` started after `deletedRunId` went, once it has ended. */
  async function nextRunOf<T>(workflowId: string, deletedRunId: string): Promise<T> {
    const handle = p.h.client.workflow.getHandle(workflowId);
    const described = await waitFor(
      async () => {
        const d = await handle.describe().catch(() => undefined);
        return d && d.runId !== deletedRunId ? d : undefined;
      },
      { timeoutMs: 60_000, what: `a new run of ${workflowId}` },
    );
    return (await p.h.client.workflow.getHandle(workflowId, described.runId).result()) as T;
  }

  async function ledgerWorkflowOf(orderId: string, eventType: string): Promise<string> {
    return waitFor(
      async () => {
        const { rows } = await p.db.pool.query<{ workflow_id: string }>(
          'SELECT workflow_id FROM processed_events WHERE aggregate_id = $1 AND event_type = $2',
          [orderId, eventType],
        );
        return rows[0]?.workflow_id;
      },
      { timeoutMs: 30_000, what: `the ${eventType} of ${orderId} in the ledger` },
    );
  }

  it('a completed order read again: still one charge and one email; the new run of its workflow ID ends duplicate', async () => {
    const sku = await p.seedStock(10);
    const orderId = uniqueName('forgotten');
    await p.place([{ data: p.order(orderId, sku), aggregateVersion: 1 }]);
    const [owner] = await p.runsOf(orderId, 1);
    assert.equal(owner!.result.outcome, 'completed');
    const claim = await findOrderClaim(p.db.pool, orderId);
    assert.equal(claim?.workflowId, owner!.workflowId);
    assert.equal(claim?.settled, 'completed', 'the owner settled its claim');

    const [ownerRunId] = await letTimePass(orderId, [owner!.workflowId]);
    assert.equal(claim?.runId, ownerRunId, 'the claim names the owning run');
    await p.rereadFromStart();

    const again = await nextRunOf<OrderResult>(owner!.workflowId, ownerRunId!);
    assert.equal(again.outcome, 'duplicate', JSON.stringify(again));
    assert.equal(again.owner, owner!.workflowId, 'owned by an earlier run of its own workflow ID');
    assert.equal(again.ownerRunId, ownerRunId);
    assert.equal(again.settled, 'completed');
    const ledger = await p.ledger(orderId);
    assert.equal(ledger.charges.length, 1, 'one charge');
    assert.equal(ledger.emails.length, 1, 'one email');
    assert.equal(ledger.refunds.length, 0);
    assert.equal((await p.reservationsOf(orderId)).length, 1);
    const { rows } = await p.db.pool.query<{ available: number }>(
      'SELECT available FROM inventory_stock WHERE sku = $1',
      [sku],
    );
    assert.equal(rows[0]!.available, 8, 'stock taken once');
    assert.deepEqual(await findOrderClaim(p.db.pool, orderId), claim, 'the claim is unchanged');

    // `orders show` tells the operator which run owned the order and how it settled.
    const shown = await runOps(['orders', 'show', orderId, '--json'], p.cliEnv());
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.json.owner.runId, ownerRunId);
    assert.equal(shown.json.owner.settled, 'completed');
    assert.equal(shown.json.ownerRunGone, true);
    const human = await runOps(['orders', 'show', orderId], p.cliEnv());
    assert.match(human.stdout, new RegExp(`run ${ownerRunId}, gone from Temporal`));
    assert.match(human.stdout, /settled completed at /);
  });

  it('a refunded order read again: no second charge, no second refund; the replayed OrderCancelled acts on nothing', async () => {
    const sku = await p.seedStock(10);
    const orderId = uniqueName('refunded');
    await p.place([{ data: p.order(orderId, sku), aggregateVersion: 1 }]);
    const [owner] = await p.runsOf(orderId, 1);
    assert.equal(owner!.result.outcome, 'completed');
    await p.cancel({ orderId, reason: 'customer asked' }, 2);
    const cancellationId = await ledgerWorkflowOf(orderId, 'OrderCancelled');
    const cancelled = (await p.h.client.workflow
      .getHandle(cancellationId)
      .result()) as OrderCancellationResult;
    assert.equal(cancelled.handledBy, 'compensated');
    assert.equal((await findOrderClaim(p.db.pool, orderId))?.settled, 'refunded');
    const before = await p.ledger(orderId);
    assert.deepEqual(
      [before.charges.length, before.refunds.length, before.emails.length],
      [1, 1, 1],
    );

    const [ownerRunId, cancellationRunId] = await letTimePass(orderId, [
      owner!.workflowId,
      cancellationId,
    ]);
    await p.rereadFromStart();

    const placedAgain = await nextRunOf<OrderResult>(owner!.workflowId, ownerRunId!);
    assert.equal(placedAgain.outcome, 'duplicate');
    assert.equal(placedAgain.settled, 'refunded');
    const cancelledAgain = await nextRunOf<OrderCancellationResult>(
      cancellationId,
      cancellationRunId!,
    );
    assert.equal(cancelledAgain.handledBy, 'already-settled', JSON.stringify(cancelledAgain));
    assert.equal(cancelledAgain.settled, 'refunded');
    const after = await p.ledger(orderId);
    assert.equal(after.charges.length, 1, 'no second charge');
    assert.equal(after.refunds.length, 1, 'no second refund');
    assert.equal(after.emails.length, 1, 'no second email');
    const { rows } = await p.db.pool.query<{ available: number }>(
      'SELECT available FROM inventory_stock WHERE sku = $1',
      [sku],
    );
    assert.equal(rows[0]!.available, 10, 'stock returned once, taken never again');
  });
});
