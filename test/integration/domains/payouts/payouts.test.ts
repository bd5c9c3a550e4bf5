import { strict as assert } from 'node:assert';
import { findClaim } from '../../../../src/index';
import { payout, payoutCancellation } from '../../../../src/domains/payouts/workflows';
import type { PayoutRequestedData } from '../../../../src/domains/payouts/payout-events';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../../support/order-env';
import { uniqueName } from '../../../support/services';

// The second domain, built on the public API only: the same worker (every registered domain),
// the same sandbox providers, the same claim table as orders.
describe('payouts: a second domain on the public API (real Temporal, Postgres, providers)', function () {
  this.timeout(180_000);
  let env: OrderEnv;
  before(async () => {
    env = await createOrderEnv();
  });
  after(async () => {
    await env.close();
  });

  const newPayout = (over: Partial<PayoutRequestedData> = {}): PayoutRequestedData => ({
    payoutId: uniqueName('payout'),
    beneficiaryId: 'ben_1',
    email: 'ben@example.com',
    amountMinor: 4200,
    currency: 'EUR',
    ...over,
  });
  const run = (data: PayoutRequestedData) =>
    env.client.workflow.execute(payout, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`PayoutRequested:${data.payoutId}`),
      args: [eventInputOf('PayoutRequested', data.payoutId, data)],
    });
  const cancel = (payoutId: string) =>
    env.client.workflow.execute(payoutCancellation, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`PayoutCancelled:${payoutId}`),
      args: [eventInputOf('PayoutCancelled', payoutId, { payoutId, reason: 'asked' })],
    });

  it('transfers once and notifies once; a re-send ends duplicate and does nothing', async () => {
    const data = newPayout();
    assert.equal((await run(data)).outcome, 'completed');
    const again = await run(data);
    assert.equal(again.outcome, 'duplicate');
    const ledger = await env.ledger(data.payoutId);
    assert.deepEqual(
      ledger.charges.map((c) => [c.amountMinor, c.idempotencyKey]),
      [[4200, `payout:${data.payoutId}:transfer`]],
    );
    assert.equal(ledger.emails.length, 1);
    const claim = await findClaim(env.db.pool, { domain: 'payouts', entityId: data.payoutId });
    assert.equal(claim?.settled, 'completed');
  });

  it('a blocked beneficiary is refused before any transfer', async () => {
    const data = newPayout({ beneficiaryId: 'blocked_7' });
    assert.equal((await run(data)).outcome, 'refused');
    const ledger = await env.ledger(data.payoutId);
    assert.equal(ledger.charges.length + ledger.emails.length, 0);
  });

  it('PayoutCancelled after the payout was paid reverses it once; a second one finds it settled', async () => {
    const data = newPayout();
    assert.equal((await run(data)).outcome, 'completed');
    assert.equal((await cancel(data.payoutId)).handledBy, 'reversed');
    const second = await cancel(data.payoutId);
    assert.equal(second.handledBy, 'already-settled');
    assert.equal(second.settled, 'reversed');
    const ledger = await env.ledger(data.payoutId);
    assert.equal(ledger.charges.length, 1);
    assert.deepEqual(
      ledger.refunds.map((r) => [r.amountMinor, r.idempotencyKey]),
      [[4200, `payout:${data.payoutId}:reverse`]],
    );
  });
});
