import { strict as assert } from 'node:assert';
import { createLedgerStore } from '../../../../src/db/ledger-store';
import { findOrderClaim } from '../../../../src/domains/orders/order-claim-store';
import { orderCancellation, orderFulfillment } from '../../../../src/domains/orders/workflows';
import {
  cancelOrderSignal,
  stepKey,
} from '../../../../src/domains/orders/workflows/order-definitions';
import { runOps } from '../../../support/ops-cli';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../../support/order-env';
import { postJson } from '../../../support/providers';
import { uniqueName } from '../../../support/services';

/**
 * Cancellation finds the order's OWNER (its claim, not the ledger the reaper trims), the same
 * owner `orders cancel` signals, and refunds every charge the order has.
 */
describe('cancellation and the order owner (real Temporal, Postgres, providers)', function () {
  this.timeout(180_000);
  let env: OrderEnv;
  beforeEach(async () => {
    env = await createOrderEnv();
  });
  afterEach(async () => {
    await env.close();
  });

  const cancelViaEvent = (orderId: string) =>
    env.client.workflow.execute(orderCancellation, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`OrderCancelled:${orderId}`),
      args: [eventInputOf('OrderCancelled', orderId, { orderId, reason: 'customer asked' })],
    });

  it('(e) a refund covers every charge the order has and says which', async () => {
    const sku = await env.seedStock(6);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    assert.equal((await handle.result()).outcome, 'completed');
    // A second charge for the same order under another key (e.g. an old client's key scheme).
    const stray = await postJson(`${env.providers.url}/v1/charges`, uniqueName('stray-key'), {
      orderId: order.orderId,
      customerId: order.customerId,
      amountMinor: 700,
      currency: 'EUR',
    });
    assert.equal(stray.status, 201);
    const charges = (await env.ledger(order.orderId)).charges;
    assert.equal(charges.length, 2);

    const cancelled = await cancelViaEvent(order.orderId);
    assert.equal(cancelled.handledBy, 'compensated');
    assert.deepEqual(
      [...(cancelled.refundedChargeIds ?? [])].sort(),
      charges.map((c) => c.id).sort(),
      'both charges refunded, and named',
    );
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.refunds.length, 2);
    const refunded = ledger.refunds.reduce((s, r) => s + r.amountMinor, 0);
    assert.equal(refunded, order.totalMinor + 700, 'net charge 0');
    assert.equal(await env.stockOf(sku), 6);

    // Again: the claim says the order was refunded, so nothing is sent; nothing refunded twice.
    const again = await cancelViaEvent(order.orderId);
    assert.equal(again.handledBy, 'already-settled');
    assert.equal(again.settled, 'refunded');
    assert.equal((await env.ledger(order.orderId)).refunds.length, 2);
  });

  it('(f) `orders cancel` and the cancellation workflow pick the same owner', async () => {
    // The owner parks at the email step, so it is running when the cancellations arrive.
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const sku = await env.seedStock(6);
    const order = env.newOrder(sku);
    const owner = await env.startOrder(order);
    await env.waitForStatus(owner, (s) => s.step === 'needs_attention', 'owner parked at email');

    // A re-send of the same order under another identity: newer in visibility, and (its
    // ledger row is dated) first seen earlier, so neither "newest" nor "first" is the owner.
    const resendId = uniqueName(`OrderPlaced:${order.orderId}-resend`);
    const resend = await env.client.workflow.start(orderFulfillment, {
      taskQueue: env.taskQueue,
      workflowId: resendId,
      args: [eventInputOf('OrderPlaced', order.orderId, order)],
    });
    await env.db.pool.query(
      `INSERT INTO processed_events (identity, event_type, event_id, aggregate_id, fingerprint,
         workflow_id, run_id, source_topic, source_partition, source_offset, first_seen_at)
       VALUES ($1, 'OrderPlaced', $1, $2, 'test', $3, $4, 'orders', 0, 1, now() - interval '1 hour')`,
      [uniqueName('evt'), order.orderId, resendId, resend.firstExecutionRunId],
    );
    const resent = await resend.result();
    assert.equal(resent.outcome, 'duplicate');
    assert.equal(resent.owner, owner.workflowId);

    const viaCli = await runOps(['orders', 'cancel', order.orderId, '--json'], {
      PROVIDERS_URL: env.providers.url,
      DATABASE_SCHEMA: env.db.schema,
    });
    assert.equal(viaCli.code, 0, viaCli.stderr);
    assert.equal(viaCli.json.workflowId, owner.workflowId, '`orders cancel` signals the owner');
    const viaEvent = await cancelViaEvent(order.orderId);
    assert.equal(viaEvent.orderWorkflowId, owner.workflowId, 'the workflow finds the owner');
    // `orders cancel` signalled the owner first; whether it is still compensating (signalled),
    // has closed before settling (compensated, with the same keys) or has already settled its
    // claim `cancelled` (nothing left to do) depends on timing: all act once.
    assert.ok(
      ['signalled', 'compensated', 'already-settled'].includes(viaEvent.handledBy),
      `handled by ${viaEvent.handledBy}`,
    );
    if (viaEvent.handledBy === 'already-settled') assert.equal(viaEvent.settled, 'cancelled');
    assert.equal((await owner.result()).outcome, 'cancelled');
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length, 1);
    assert.equal(ledger.refunds.length, 1);
    assert.equal(await env.stockOf(sku), 6);
  });

  it('(g) a cancellation after the ledger rows were reaped still refunds and releases', async () => {
    const sku = await env.seedStock(6);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    assert.equal((await handle.result()).outcome, 'completed');
    // LEDGER_RETENTION_DAYS passed: the reaper trims the bridge's ledger, not the claim.
    await env.db.pool.query(
      `UPDATE processed_events SET first_seen_at = now() - interval '40 days'
        WHERE aggregate_id = $1`,
      [order.orderId],
    );
    const reaped = await createLedgerStore(env.db.pool, { schema: env.db.schema }).reapOlderThan(
      30,
    );
    assert.ok(reaped >= 1, 'the ledger row is gone');

    const cancelled = await cancelViaEvent(order.orderId);
    assert.equal(cancelled.handledBy, 'compensated');
    assert.equal(cancelled.orderWorkflowId, handle.workflowId);
    assert.equal(cancelled.refunded, true);
    assert.equal(cancelled.released, true);
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.refunds.length, 1);
    assert.equal(ledger.refunds[0]!.idempotencyKey, stepKey(order.orderId, 'refund'));
    assert.equal(await env.stockOf(sku), 6, 'stock restored');
    // The claim outlived the reaper: it is how the cancellation found the owner.
    assert.equal((await findOrderClaim(env.db.pool, order.orderId))?.workflowId, handle.workflowId);
  });

  it('a cancellation before the order reserved: the ledger finds the run, the claim keeps it cancelled', async () => {
    const sku = await env.seedStock(6);
    const order = env.newOrder(sku);
    // No claim yet: the run was started on a task queue no worker polls, so it never reserves.
    const idleQueue = uniqueName('idle-tq');
    const waiting = await env.client.workflow.start(orderFulfillment, {
      taskQueue: idleQueue,
      workflowId: uniqueName(`OrderPlaced:${order.orderId}`),
      args: [eventInputOf('OrderPlaced', order.orderId, order)],
    });
    try {
      await env.db.pool.query(
        `INSERT INTO processed_events (identity, event_type, event_id, aggregate_id, fingerprint,
           workflow_id, run_id, source_topic, source_partition, source_offset)
         VALUES ($1, 'OrderPlaced', $1, $2, 'test', $3, $4, 'orders', 0, 0)`,
        [uniqueName('evt'), order.orderId, waiting.workflowId, waiting.firstExecutionRunId],
      );
      const viaEvent = await cancelViaEvent(order.orderId);
      // The run never closes (no worker polls its queue), so the signal is delivered and the
      // cancellation leaves the compensating to it: `signalled`, never `compensated`.
      assert.equal(viaEvent.handledBy, 'signalled');
      assert.equal(viaEvent.orderWorkflowId, waiting.workflowId, 'found through the ledger');
      assert.equal(viaEvent.refunded, undefined, 'nothing refunded by the cancellation itself');
      const signals = (await waiting.fetchHistory()).events!.filter(
        (e) => e.workflowExecutionSignaledEventAttributes?.signalName === cancelOrderSignal.name,
      );
      assert.equal(signals.length, 1, 'the waiting run got the cancel signal, once');
    } finally {
      await waiting.terminate('test cleanup');
    }

    // A run cancelled before it reserved claims the order as cancelled: a re-send acts on nothing.
    const first = await env.client.workflow.signalWithStart(orderFulfillment, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`OrderPlaced:${order.orderId}-first`),
      args: [eventInputOf('OrderPlaced', order.orderId, order)],
      signal: cancelOrderSignal,
      signalArgs: [{ reason: 'before reserve' }],
    });
    assert.equal((await first.result()).outcome, 'cancelled');
    const claim = await findOrderClaim(env.db.pool, order.orderId);
    assert.equal(claim?.workflowId, first.workflowId);
    assert.ok(claim?.cancelledAt, 'the claim says it was cancelled before reserving');
    const resent = await env.client.workflow.execute(orderFulfillment, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`OrderPlaced:${order.orderId}-resend`),
      args: [eventInputOf('OrderPlaced', order.orderId, order)],
    });
    assert.equal(resent.outcome, 'duplicate');
    assert.equal(resent.owner, first.workflowId);
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length + ledger.emails.length, 0);
    assert.equal(await env.stockOf(sku), 6, 'nothing reserved');
  });
});
