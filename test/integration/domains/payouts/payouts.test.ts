import { strict as assert } from 'node:assert';
import { findClaim } from '../../../../src/index';
import { payout, payoutCancellation } from '../../../../src/domains/payouts/workflows';
import type { PayoutRequestedData } from '../../../../src/domains/payouts/payout-events';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../../support/order-env';
import { newPayout } from '../../../support/payout-data';
import { uniqueName } from '../../../support/services';
import { waitFor } from '../../../../src/util/wait';

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
  it('a provider failing during the reversal of a paid payout delays its cancellation, never loses it', async () => {
    const data = newPayout();
    assert.equal((await run(data)).outcome, 'completed');
    // More failures than the fast phase's four attempts: only a longer retry gets through.
    await env.setFaults({ endpoints: { refunds: { failBeforeCommitRate: 1, limit: 4 } } });
    try {
      assert.equal((await cancel(data.payoutId)).handledBy, 'reversed');
    } finally {
      await env.setFaults({ endpoints: { refunds: {} } });
    }
    assert.equal((await env.ledger(data.payoutId)).refunds.length, 1);
  });

  it('PayoutCancelled read before its payout has claimed waits for the claim, then undoes the payout', async () => {
    const data = newPayout();
    // The cancellation first: it finds no claim and waits on a durable timer (without the
    // wait it would end payout-not-found and the payout would keep its transfer).
    const cancellation = await env.client.workflow.start(payoutCancellation, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`PayoutCancelled:${data.payoutId}`),
      args: [
        eventInputOf('PayoutCancelled', data.payoutId, {
          payoutId: data.payoutId,
          reason: 'asked',
        }),
      ],
    });
    await waitFor(
      async () =>
        ((await cancellation.fetchHistory()).events ?? []).some(
          (e) => e.timerStartedEventAttributes,
        ),
      { timeoutMs: 60_000, what: 'the cancellation to wait for an owner' },
    );
    const paid = await run(data);
    const handled = await cancellation.result();
    assert.ok(['signalled', 'reversed'].includes(handled.handledBy), JSON.stringify(handled));
    // Signalled while it ran (it unwound itself), or reversed after it had paid.
    assert.ok(['cancelled', 'completed'].includes(String(paid.outcome)), JSON.stringify(paid));
    await waitFor(
      async () => {
        const claim = await findClaim(env.db.pool, { domain: 'payouts', entityId: data.payoutId });
        return claim?.settled === 'cancelled' || claim?.settled === 'reversed';
      },
      { timeoutMs: 60_000, what: 'the payout claim to settle cancelled or reversed' },
    );
    const ledger = await env.ledger(data.payoutId);
    const net =
      ledger.charges.reduce((s, c) => s + c.amountMinor, 0) -
      ledger.refunds.reduce((s, r) => s + r.amountMinor, 0);
    assert.equal(net, 0, JSON.stringify(ledger));
    assert.ok(ledger.charges.length <= 1 && ledger.refunds.length <= 1, JSON.stringify(ledger));
  });
});
