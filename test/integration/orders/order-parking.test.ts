import { strict as assert } from 'node:assert';
import { SEARCH_ATTRIBUTE } from '../../../src/temporal/search-attributes';
import { resolveStepSignal, retryStepSignal } from '../../../src/workflows/order-definitions';
import { createOrderEnv, type OrderEnv } from '../../support/order-env';

describe('unknown outcome: parking in needs_attention (real Temporal server)', () => {
  let env: OrderEnv;
  beforeEach(async () => {
    env = await createOrderEnv();
  });
  afterEach(async () => {
    await env.close();
  });

  it('parks when the email budget is spent, then an operator retry finishes with one email', async () => {
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const sku = await env.seedStock(3);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    const parked = await env.waitForStatus(handle, (s) => s.step === 'needs_attention', 'parking');
    assert.equal(parked.parked?.step, 'email');
    assert.match(parked.parked?.error ?? '', /ProviderUnavailableError|500/);
    assert.equal(
      (await handle.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTE.orderStep),
      'needs_attention',
    );
    assert.equal((await env.ledger(order.orderId)).emails.length, 0);

    await env.setFaults({ endpoints: { emails: {} } });
    await handle.signal(retryStepSignal);
    const result = await handle.result();
    assert.equal(result.outcome, 'completed');
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.emails.length, 1);
    assert.equal(ledger.charges.length, 1);
    const status = await env.status(handle);
    assert.deepEqual(
      status.recoveryPoints.map((p) => `${p.step}:${p.how}`),
      ['reserve:done', 'charge:done', 'email:done'],
    );
  });

  it('parks, then an operator resolve continues without repeating the step', async () => {
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const sku = await env.seedStock(3);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    await env.waitForStatus(handle, (s) => s.parked?.step === 'email', 'parking at email');
    await handle.signal(resolveStepSignal);
    const result = await handle.result();
    assert.equal(result.outcome, 'completed');
    const status = await env.status(handle);
    assert.deepEqual(
      status.recoveryPoints.map((p) => `${p.step}:${p.how}`),
      ['reserve:done', 'charge:done', 'email:resolved'],
    );
    assert.equal((await env.ledger(order.orderId)).emails.length, 0, 'resolved, not re-sent');
    assert.equal(await env.stockOf(sku), 1);
  });
});
