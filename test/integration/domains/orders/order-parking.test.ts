import { strict as assert } from 'node:assert';
import { SEARCH_ATTRIBUTE } from '../../../../src/temporal/search-attributes';
import {
  ATTENTION_MEMO,
  resolveStepSignal,
  retryStepSignal,
  stepKey,
  type Attention,
} from '../../../../src/domains/orders/workflows/order-definitions';
import { createOrderEnv, type OrderEnv } from '../../../support/order-env';
import { postJson } from '../../../support/providers';

describe('unknown outcome: parking in needs_attention (real Temporal server)', () => {
  let env: OrderEnv;
  beforeEach(async () => {
    env = await createOrderEnv();
  });
  afterEach(async () => {
    await env.close();
  });

  it('a permanent cause (422 key reuse) parks at once, without waiting, and says so in the memo', async () => {
    const sku = await env.seedStock(3);
    const order = env.newOrder(sku);
    // The charge key already used for another request: the provider answers 422.
    const taken = await postJson(
      `${env.providers.url}/v1/charges`,
      stepKey(order.orderId, 'charge'),
      {
        orderId: order.orderId,
        customerId: 'someone-else',
        amountMinor: 1,
        currency: 'EUR',
      },
    );
    assert.equal(taken.status, 201);
    const handle = await env.startOrder(order);
    const parked = await env.waitForStatus(handle, (s) => s.step === 'needs_attention', 'parking');
    assert.match(parked.parked?.error ?? '', /^IdempotencyKeyReused: /);
    const attention = (await handle.describe()).memo?.[ATTENTION_MEMO] as Attention | undefined;
    assert.equal(attention?.state, 'parked');
    assert.equal(attention?.attempt, undefined, 'no transient retries');
    await handle.terminate('test done');
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
      (await handle.describe()).typedSearchAttributes.get(SEARCH_ATTRIBUTE.step),
      'needs_attention',
    );
    assert.equal((await env.ledger(order.orderId)).emails.length, 0);

    const attention = (await handle.describe()).memo?.[ATTENTION_MEMO] as Attention | undefined;
    assert.equal(attention?.state, 'parked', 'the 1 s test window ran out');
    assert.match(
      attention?.cause ?? '',
      /\(waited until .*, the transient window\)$/,
      'parked after its waiting round spent the window',
    );
    assert.equal(attention?.episodes, 1, 'its first episode: no operator retry yet');

    await env.setFaults({ endpoints: { emails: {} } });
    await handle.signal(retryStepSignal);
    const result = await handle.result();
    assert.equal((await handle.describe()).memo?.[ATTENTION_MEMO], undefined, 'memo cleared');
    assert.equal(result.outcome, 'completed');
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.emails.length, 1);
    assert.equal(ledger.charges.length, 1);
    const status = await env.status(handle);
    assert.deepEqual(
      status.recoveryPoints.map((p) => `${p.step}:${p.how}`),
      ['reserve:done', 'charge:done', 'email:done', 'announce:done'],
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
      ['reserve:done', 'charge:done', 'email:resolved', 'announce:done'],
    );
    assert.equal((await env.ledger(order.orderId)).emails.length, 0, 'resolved, not re-sent');
    assert.equal(await env.stockOf(sku), 1);
  });
});
