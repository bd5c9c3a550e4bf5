import { strict as assert } from 'node:assert';
import { runStepOf } from '../../../../src/temporal/run-step';
import { SEARCH_ATTRIBUTE } from '../../../../src/temporal/search-attributes';
import { createOrderEnv, type OrderEnv } from '../../../support/order-env';
import { getJson } from '../../../support/providers';

describe('orderFulfillment on a real Temporal server', () => {
  let env: OrderEnv;
  beforeEach(async () => {
    env = await createOrderEnv();
  });
  afterEach(async () => {
    await env.close();
  });

  it('happy path: reserves, charges once, emails once, with derived keys', async () => {
    const sku = await env.seedStock(10);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    const result = await handle.result();
    assert.equal(result.outcome, 'completed');
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length, 1);
    assert.equal(ledger.charges[0]!.amountMinor, order.totalMinor);
    assert.equal(ledger.charges[0]!.idempotencyKey, `order:${order.orderId}:charge`);
    assert.equal(ledger.emails.length, 1);
    assert.equal(ledger.emails[0]!.idempotencyKey, `order:${order.orderId}:email`);
    assert.equal(ledger.refunds.length, 0);
    assert.equal(await env.stockOf(sku), 8);
    const status = await env.status(handle);
    assert.equal(status.step, 'completed');
    assert.deepEqual(
      status.recoveryPoints.map((p) => p.step),
      ['reserve', 'charge', 'email', 'announce'],
    );
    assert.ok(status.recoveryPoints.every((p) => !Number.isNaN(Date.parse(p.at))));
    assert.equal(status.keys.reserve, `order:${order.orderId}:reserve`);
    const described = await handle.describe();
    // The happy ending writes no Step (one event less): visibility tells it by its status.
    assert.equal(described.typedSearchAttributes.get(SEARCH_ATTRIBUTE.step), undefined);
    assert.equal(runStepOf(described), 'completed');
    assert.equal(described.typedSearchAttributes.get(SEARCH_ATTRIBUTE.entityId), order.orderId);
    assert.equal(described.typedSearchAttributes.get(SEARCH_ATTRIBUTE.eventType), 'OrderPlaced');
  });

  it('out of stock: rejected, nothing charged, nothing emailed, stock untouched', async () => {
    const sku = await env.seedStock(1);
    const order = env.newOrder(sku);
    const result = await (await env.startOrder(order)).result();
    assert.equal(result.outcome, 'rejected');
    assert.match(result.reason ?? '', /out of stock/);
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length + ledger.emails.length, 0);
    assert.equal(await env.stockOf(sku), 1);
  });

  it('declined card: inventory released, nothing charged, no email', async () => {
    const sku = await env.seedStock(5);
    const order = env.newOrder(sku, { customerId: 'declined-customer' });
    const handle = await env.startOrder(order);
    const result = await handle.result();
    assert.equal(result.outcome, 'declined');
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length + ledger.emails.length, 0);
    assert.equal(await env.stockOf(sku), 5, 'reservation released');
    const status = await env.status(handle);
    assert.deepEqual(
      status.recoveryPoints.map((p) => p.step),
      ['reserve', 'release'],
    );
  });

  it('timeout after commit on the first charge attempt: the retry is replayed; one charge', async () => {
    await env.setFaults({
      seed: 42,
      endpoints: { charges: { timeoutAfterCommitRate: 1, limit: 1 } },
    });
    const sku = await env.seedStock(5);
    const order = env.newOrder(sku);
    const result = await (await env.startOrder(order)).result();
    assert.equal(result.outcome, 'completed');
    const faults = await getJson(`${env.providers.url}/admin/faults`);
    assert.equal(
      (faults as { endpoints: { charges: { injected: number } } }).endpoints.charges.injected,
      1,
      'the first attempt lost its response',
    );
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length, 1);
    assert.equal(result.chargeId, ledger.charges[0]!.id, 'the replayed response names the charge');
    assert.equal(ledger.emails.length, 1);
  });
});
