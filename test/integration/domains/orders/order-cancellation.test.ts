import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { orderCancellation } from '../../../../src/domains/orders/workflows';
import { cancelOrderSignal } from '../../../../src/domains/orders/workflows/order-definitions';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../../support/order-env';
import { uniqueName } from '../../../support/services';

describe('order cancellation on a real Temporal server', () => {
  let env: OrderEnv;
  beforeEach(async () => {
    env = await createOrderEnv();
  });
  afterEach(async () => {
    await env.close();
  });

  /**
   * Starts the cancellation workflow the bridge starts for an OrderCancelled event; it finds
   * the order's run in the ledger row startOrder wrote (as the bridge does).
   */
  const cancelViaEvent = async (orderId: string, order: WorkflowHandle) => {
    const result = await env.client.workflow.execute(orderCancellation, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`OrderCancelled:${orderId}`),
      args: [eventInputOf('OrderCancelled', orderId, { orderId, reason: 'customer asked' })],
    });
    assert.equal(result.orderWorkflowId, order.workflowId, 'found the order run in the ledger');
    return result;
  };

  it('cancel before charge: the reservation is released, nothing charged or refunded', async () => {
    // Every charge attempt fails before commit, so the order parks at the charge step.
    await env.setFaults({ endpoints: { charges: { failBeforeCommitRate: 1 } } });
    const sku = await env.seedStock(6);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    await env.waitForStatus(handle, (s) => s.parked?.step === 'charge', 'parked at charge');
    assert.equal(await env.stockOf(sku), 4, 'reserved while parked');
    const cancelled = await cancelViaEvent(order.orderId, handle);
    assert.equal(cancelled.handledBy, 'signalled');
    const result = await handle.result();
    assert.equal(result.outcome, 'cancelled');
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length + ledger.refunds.length + ledger.emails.length, 0);
    assert.equal(await env.stockOf(sku), 6, 'stock restored');
  });

  it('cancel after charge: refunded in full and released', async () => {
    // The email is slow, so the cancel lands after the charge's recovery point.
    await env.setFaults({ endpoints: { emails: { latencyMs: 3000 } } });
    const sku = await env.seedStock(6);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    await env.waitForStatus(
      handle,
      (s) => s.recoveryPoints.some((p) => p.step === 'charge'),
      'the charge recovery point',
    );
    await handle.signal(cancelOrderSignal, { reason: 'changed my mind' });
    const result = await handle.result();
    assert.equal(result.outcome, 'cancelled');
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length, 1);
    assert.equal(ledger.refunds.length, 1);
    assert.equal(ledger.refunds[0]!.amountMinor, ledger.charges[0]!.amountMinor, 'net charge 0');
    assert.equal(ledger.refunds[0]!.idempotencyKey, `order:${order.orderId}:refund`);
    assert.equal(await env.stockOf(sku), 6);
    const status = await env.status(handle);
    assert.equal(status.step, 'cancelled');
    assert.equal(status.cancellation?.reason, 'changed my mind');
  });

  it('cancel after completion: the cancellation workflow refunds and restores stock', async () => {
    const sku = await env.seedStock(6);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    assert.equal((await handle.result()).outcome, 'completed');
    assert.equal(await env.stockOf(sku), 4);
    const cancelled = await cancelViaEvent(order.orderId, handle);
    assert.equal(cancelled.handledBy, 'compensated');
    assert.equal(cancelled.refunded, true);
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length, 1);
    assert.equal(ledger.refunds.length, 1);
    assert.equal(ledger.refunds[0]!.idempotencyKey, `order:${order.orderId}:refund`);
    assert.equal(await env.stockOf(sku), 6);
  });

  it('duplicate cancellations (signals and events, before and after completion) act once', async () => {
    await env.setFaults({ endpoints: { emails: { latencyMs: 3000 } } });
    const sku = await env.seedStock(6);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    await env.waitForStatus(handle, (s) => s.step === 'emailing', 'the email step');
    await handle.signal(cancelOrderSignal, { reason: 'first' });
    await handle.signal(cancelOrderSignal, { reason: 'second' });
    const viaEvents = await Promise.all([
      cancelViaEvent(order.orderId, handle),
      cancelViaEvent(order.orderId, handle),
    ]);
    const result = await handle.result();
    assert.equal(result.outcome, 'cancelled');
    // After the order closed, yet another cancellation finds its claim settled `cancelled`:
    // nothing left to undo, so it sends no refund or release at all.
    const late = await cancelViaEvent(order.orderId, handle);
    assert.equal(late.handledBy, 'already-settled');
    assert.equal(late.settled, 'cancelled');
    assert.deepEqual(
      viaEvents.map((c) => c.handledBy),
      ['signalled', 'signalled'],
      'the order was still running (slow email), so both events only signalled it',
    );
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length, 1);
    assert.equal(ledger.refunds.length, 1, 'one refund');
    assert.equal(await env.stockOf(sku), 6, 'stock restored exactly once');
    assert.equal((await env.status(handle)).cancellation?.reason, 'first');
  });

  it('a cancellation for an order never placed ends as order-not-found', async () => {
    const orderId = uniqueName('ghost');
    const result = await env.client.workflow.execute(orderCancellation, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`OrderCancelled:${orderId}`),
      args: [eventInputOf('OrderCancelled', orderId, { orderId, reason: 'typo' })],
    });
    assert.equal(result.handledBy, 'order-not-found');
    const ledger = await env.ledger(orderId);
    assert.equal(ledger.refunds.length, 0);
  });
});
