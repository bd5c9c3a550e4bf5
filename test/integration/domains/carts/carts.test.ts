import { strict as assert } from 'node:assert';
import { findClaim } from '../../../../src/index';
import { cart, cartCancellation } from '../../../../src/domains/carts/workflows';
import type { CartCheckedOutData } from '../../../../src/domains/carts/cart-events';
import { judgeCart, type CartEvidence } from '../../../../src/domains/carts/invariants';
import {
  CART_EVENTS_TOPIC,
  CART_MAILS,
  CARTS_DOMAIN,
} from '../../../../src/domains/carts/workflows/cart-names';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../../support/order-env';
import { DECLINED_CARD, newCart } from '../../../support/cart-data';
import { readPublished } from '../../../support/published-events';
import { uniqueName } from '../../../support/services';
import { waitFor } from '../../../../src/util/wait';

// The third domain, code first on the public API only: a loop over the lines, a caught
// decline, two branches at once. The same worker, sandbox providers and claim table as orders.
describe('carts: a loop, a caught decline and branches at once (real Temporal, Postgres, providers)', function () {
  this.timeout(180_000);
  let env: OrderEnv;
  before(async () => {
    env = await createOrderEnv();
  });
  after(async () => {
    await env.close();
  });

  const start = (data: CartCheckedOutData) =>
    env.client.workflow.start(cart, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`CartCheckedOut:${data.cartId}`),
      args: [eventInputOf('CartCheckedOut', data.cartId, data)],
    });
  const run = async (data: CartCheckedOutData) => (await start(data)).result();
  const cancel = (cartId: string) =>
    env.client.workflow.execute(cartCancellation, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`CartCancelled:${cartId}`),
      args: [eventInputOf('CartCancelled', cartId, { cartId, reason: 'changed my mind' })],
    });

  /** What the providers and the events topic hold for the cart, as the invariants read it. */
  async function evidenceOf(data: CartCheckedOutData, outcome: string, cancelled = false) {
    const ledger = await env.ledger(data.cartId);
    const records = (await readPublished(CART_EVENTS_TOPIC)).filter((r) => r.key === data.cartId);
    const evidence: CartEvidence = {
      outcome,
      cancelled,
      lines: data.lines,
      totalMinor: data.totalMinor,
      holds: ledger.holds.map((h) => ({ id: h.id, sku: h.sku, released: h.releasedAt !== null })),
      charges: ledger.charges,
      refunds: ledger.refunds,
      shipments: ledger.shipments.map((s) => ({ id: s.id, cancelled: s.cancelledAt !== null })),
      mails: ledger.emails.map((m) => m.subject),
      published: [...new Set(records.map((r) => r.headers['event-id']!))],
    };
    return { ledger, evidence };
  }
  const key = (data: CartCheckedOutData, step: string) => `cart:${data.cartId}:${step}`;

  it('holds each of three lines once under its own key, charges once, ships, mails, publishes once; a re-send does nothing', async () => {
    const data = newCart();
    const result = await run(data);
    assert.equal(result.outcome, 'completed');
    assert.equal((result as { paidBy?: string }).paidBy, 'primary');
    assert.equal((await run(data)).outcome, 'duplicate');

    const { ledger, evidence } = await evidenceOf(data, 'completed');
    assert.deepEqual(judgeCart(evidence), []);
    assert.deepEqual(ledger.holds.map((h) => [h.sku, h.quantity, h.idempotencyKey]).sort(), [
      ['apple', 2, key(data, 'reserve:apple')],
      ['fig', 3, key(data, 'reserve:fig')],
      ['pear', 1, key(data, 'reserve:pear')],
    ]);
    assert.deepEqual(
      ledger.charges.map((c) => [c.amountMinor, c.idempotencyKey]),
      [[2500, key(data, 'charge')]],
    );
    assert.equal(ledger.shipments.length, 1);
    assert.deepEqual(
      ledger.emails.map((m) => m.subject).sort(),
      [CART_MAILS.notice(data.cartId), CART_MAILS.receipt(data.cartId)].sort(),
    );
    assert.deepEqual(evidence.published, [key(data, 'announce')]);
    const claim = await findClaim(env.db.pool, { domain: CARTS_DOMAIN, entityId: data.cartId });
    assert.equal(claim?.settled, 'completed');
  });

  it('a declined primary card falls back to the backup card: one charge, under the backup key', async () => {
    const data = newCart({ primaryCard: DECLINED_CARD });
    const result = await run(data);
    assert.equal(result.outcome, 'completed');
    assert.equal((result as { paidBy?: string }).paidBy, 'backup');
    const { ledger, evidence } = await evidenceOf(data, 'completed');
    assert.deepEqual(judgeCart(evidence), []);
    assert.deepEqual(
      ledger.charges.map((c) => c.idempotencyKey),
      [key(data, 'charge-backup')],
    );
    assert.equal(ledger.refunds.length, 0);
  });

  it('both cards declined: the cart ends declined with every line released once, nothing charged or shipped', async () => {
    const data = newCart({ primaryCard: DECLINED_CARD, backupCard: DECLINED_CARD });
    assert.equal((await run(data)).outcome, 'declined');
    const { ledger, evidence } = await evidenceOf(data, 'declined');
    assert.deepEqual(judgeCart(evidence), []);
    assert.deepEqual(ledger.holds.map((h) => h.releaseKey).sort(), [
      key(data, 'release:apple'),
      key(data, 'release:fig'),
      key(data, 'release:pear'),
    ]);
    assert.equal(ledger.charges.length + ledger.shipments.length + ledger.emails.length, 0);
  });

  it('cancelled while its shipment is booked: no notice after the cancel, every line released, refunded once, the shipment cancelled', async () => {
    const data = newCart();
    // The carrier answers slowly: the shipment is in flight when the cancellation arrives.
    await env.setFaults({ endpoints: { shipments: { latencyMs: 3000 } } });
    try {
      const handle = await start(data);
      await waitFor(async () => (await env.ledger(data.cartId)).emails.length > 0, {
        timeoutMs: 60_000,
        what: 'the receipt, sent beside the shipment in flight',
      });
      assert.equal((await cancel(data.cartId)).handledBy, 'signalled');
      assert.equal((await handle.result()).outcome, 'cancelled');
    } finally {
      await env.setFaults({ endpoints: { shipments: {} } });
    }
    const { ledger, evidence } = await evidenceOf(data, 'cancelled', true);
    assert.deepEqual(judgeCart(evidence), []);
    assert.deepEqual(ledger.holds.map((h) => h.releaseKey).sort(), [
      key(data, 'release:apple'),
      key(data, 'release:fig'),
      key(data, 'release:pear'),
    ]);
    assert.deepEqual(
      ledger.refunds.map((r) => [r.amountMinor, r.idempotencyKey]),
      [[2500, key(data, 'refund')]],
    );
    assert.deepEqual(
      ledger.shipments.map((s) => s.cancelKey),
      [key(data, 'unship')],
    );
    assert.deepEqual(
      ledger.emails.map((m) => m.subject),
      [CART_MAILS.receipt(data.cartId)],
      'the notice comes after the shipment: never sent once cancelled',
    );
    const claim = await findClaim(env.db.pool, { domain: CARTS_DOMAIN, entityId: data.cartId });
    assert.equal(claim?.settled, 'cancelled');
  });

  it('a provider failing during the undo of a fulfilled cart delays its cancellation, never loses it', async () => {
    const data = newCart();
    assert.equal((await run(data)).outcome, 'completed');
    // More failures than the fast phase's four attempts: only a longer retry gets through.
    await env.setFaults({ endpoints: { refunds: { failBeforeCommitRate: 1, limit: 4 } } });
    try {
      assert.equal((await cancel(data.cartId)).handledBy, 'reversed');
    } finally {
      await env.setFaults({ endpoints: { refunds: {} } });
    }
    const { ledger, evidence } = await evidenceOf(data, 'cancelled', true);
    assert.deepEqual(judgeCart(evidence), []);
    assert.equal(ledger.refunds.length, 1);
  });

  it('CartCancelled after the cart was fulfilled undoes it once; a second one finds it settled', async () => {
    const data = newCart();
    assert.equal((await run(data)).outcome, 'completed');
    assert.equal((await cancel(data.cartId)).handledBy, 'reversed');
    const second = await cancel(data.cartId);
    assert.equal(second.handledBy, 'already-settled');
    assert.equal(second.settled, 'reversed');
    const { ledger, evidence } = await evidenceOf(data, 'cancelled', true);
    assert.deepEqual(judgeCart(evidence), []);
    assert.deepEqual(
      ledger.holds.map((h) => h.releaseKey),
      ledger.holds.map(() => key(data, 'release')),
    );
    assert.deepEqual(
      ledger.refunds.map((r) => r.idempotencyKey),
      [key(data, 'refund')],
    );
  });
});
