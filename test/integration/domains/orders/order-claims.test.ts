import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { fingerprint } from '../../../../src/events/identity';
import { findOrderClaim } from '../../../../src/domains/orders/order-claim-store';
import {
  MAX_KEY_LENGTH,
  orderStatusQuery,
} from '../../../../src/domains/orders/workflows/order-definitions';
import { waitFor } from '../../../../src/util/wait';
import { runOps } from '../../../support/ops-cli';
import { uniqueName } from '../../../support/services';
import { OrderPipeline, type OrderRunResult } from './order-pipeline';

/** The run that completed and the other one, whichever of the two won the claim. */
function ownerAndOther(runs: OrderRunResult[]): [OrderRunResult, OrderRunResult] {
  assert.equal(runs.length, 2, 'two workflows');
  const owner = runs.find((r) => r.result.outcome === 'completed');
  assert.ok(owner, `one run completed: ${JSON.stringify(runs.map((r) => r.result))}`);
  return [owner, runs.find((r) => r !== owner)!];
}

/**
 * The producer mistakes of issue 12 through the real pipeline (Kafka → bridge → Temporal →
 * worker → Postgres and providers): the event identity lets a second workflow start; the
 * order claim keeps it from acting.
 */
describe('one order, one set of effects (real Kafka, Temporal, Postgres, providers)', function () {
  this.timeout(180_000);
  let p: OrderPipeline;
  before(async () => {
    p = await new OrderPipeline().setUp();
  });
  after(async () => {
    await p?.tearDown();
  });

  /** One reservation, one charge, one email, stock taken once. */
  async function assertOneSetOfEffects(orderId: string, sku: string, before: number) {
    const ledger = await p.ledger(orderId);
    assert.equal(ledger.charges.length, 1, 'one charge');
    assert.equal(ledger.emails.length, 1, 'one email');
    assert.equal(ledger.refunds.length, 0);
    assert.equal((await p.reservationsOf(orderId)).length, 1, 'one reservation');
    const { rows } = await p.db.pool.query<{ available: number }>(
      'SELECT available FROM inventory_stock WHERE sku = $1',
      [sku],
    );
    assert.equal(rows[0]!.available, before - 2, 'stock taken once');
  }

  it('(a) an OrderPlaced re-sent with a fresh event ID and no version: the second run is a duplicate of the first', async () => {
    const sku = await p.seedStock(10);
    const orderId = uniqueName('resent');
    const data = p.order(orderId, sku);
    await p.place([{ data }, { data }]);
    const [owner, duplicate] = ownerAndOther(await p.runsOf(orderId, 2));
    assert.equal(duplicate.result.outcome, 'duplicate');
    assert.equal(duplicate.result.owner, owner.workflowId);
    assert.equal(duplicate.step, 'duplicate', 'Step search attribute');
    await assertOneSetOfEffects(orderId, sku, 10);
    assert.equal((await findOrderClaim(p.db.pool, orderId))?.workflowId, owner.workflowId);

    // The Web UI's current details (from the status) name the owner.
    const status = await p.h.client.workflow
      .getHandle(duplicate.workflowId)
      .query(orderStatusQuery);
    assert.equal(status.owner?.workflowId, owner.workflowId);

    // `orders show` names the owner and lists the duplicate run.
    const shown = await runOps(['orders', 'show', orderId, '--json'], p.cliEnv());
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.json.workflowId, owner.workflowId);
    assert.equal(shown.json.foundBy, 'claim');
    assert.equal(shown.json.owner.workflowId, owner.workflowId);
    assert.deepEqual(
      shown.json.otherRuns.map((r: { workflowId: string; step: string }) => [r.workflowId, r.step]),
      [[duplicate.workflowId, 'duplicate']],
    );
  });

  it('(b) the same order re-emitted as version 2 with identical data: a duplicate, one set of effects', async () => {
    const sku = await p.seedStock(10);
    const orderId = uniqueName('reemitted');
    const data = p.order(orderId, sku);
    await p.place([
      { data, aggregateVersion: 1 },
      { data, aggregateVersion: 2, eventId: randomUUID() },
    ]);
    const [owner, duplicate] = ownerAndOther(await p.runsOf(orderId, 2));
    assert.equal(duplicate.result.outcome, 'duplicate');
    assert.equal(duplicate.result.owner, owner.workflowId);
    await assertOneSetOfEffects(orderId, sku, 10);
  });

  it('(c) the same order with different data under a new identity: an order conflict, never acted on', async () => {
    const sku = await p.seedStock(10);
    const orderId = uniqueName('conflict');
    const first = p.order(orderId, sku);
    const second = p.order(orderId, sku, {
      items: [{ sku, quantity: 3, unitPriceMinor: 1250 }],
      totalMinor: 3750,
    });
    await p.place([{ data: first, aggregateVersion: 1 }]);
    await p.runsOf(orderId, 1);
    await p.place([{ data: second, aggregateVersion: 2 }]);
    const [owner, conflict] = ownerAndOther(await p.runsOf(orderId, 2));
    assert.equal(conflict.result.outcome, 'order-conflict');
    assert.equal(conflict.step, 'order_conflict');
    assert.equal(conflict.result.owner, owner.workflowId);
    assert.equal(conflict.result.ownerFingerprint, fingerprint(first));
    assert.equal(conflict.result.fingerprint, fingerprint(second));
    await assertOneSetOfEffects(orderId, sku, 10);
    const ledger = await p.ledger(orderId);
    assert.equal(ledger.charges[0]!.amountMinor, 2500, "the owner's amount, not the conflict's");
    // One Web UI query finds every order conflict.
    const query = `Step = "order_conflict" AND EntityId = '${orderId}'`;
    await waitFor(async () => (await p.h.client.workflow.count(query)).count === 1, {
      timeoutMs: 30_000,
      what: `visibility: ${query}`,
    });
  });

  it('(d) an order ID of 40 × é completes with one charge, every key within 255 characters', async () => {
    const sku = await p.seedStock(10);
    const orderId = 'é'.repeat(40);
    // The namespace is shared by every run of this test: a version of its own keeps the
    // workflow ID (and the bridge's dedup) fresh; keys, claims and ledgers are per schema.
    await p.place([{ data: p.order(orderId, sku), aggregateVersion: Date.now() }]);
    const [run] = await p.runsOf(orderId, 1);
    assert.equal(run!.result.outcome, 'completed', JSON.stringify(run!.result));
    const status = await p.h.client.workflow.getHandle(run!.workflowId).query(orderStatusQuery);
    for (const key of Object.values(status.keys)) {
      assert.ok(key.length <= MAX_KEY_LENGTH, `${key} is ${key.length} characters`);
    }
    const ledger = await p.ledger(orderId);
    assert.equal(ledger.charges.length, 1);
    assert.equal(ledger.emails.length, 1);
    assert.ok(ledger.charges[0]!.idempotencyKey.length <= MAX_KEY_LENGTH);
  });
});
