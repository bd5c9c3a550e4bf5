import { strict as assert } from 'node:assert';
import { ApplicationFailure } from '@temporalio/common';
import { createEmailActivities } from '../../../src/activities/email';
import { createPaymentActivities } from '../../../src/activities/payments';
import {
  IdempotencyKeyInUseError,
  ProviderTimeoutError,
  ProviderUnavailableError,
} from '../../../src/activities/provider-http';
import type { RunningProviders } from '../../../src/providers/server';
import { uniqueName } from '../../support/services';
import {
  createTestDatabase,
  setFaults,
  startTestProviders,
  type TestDatabase,
} from '../../support/providers';

async function failureOf(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
}

describe('provider clients used by the activities (real sandbox over HTTP)', () => {
  let db: TestDatabase;
  let providers: RunningProviders;
  let payments: ReturnType<typeof createPaymentActivities>;

  before(async () => {
    db = await createTestDatabase('clients');
    providers = await startTestProviders(db);
    payments = createPaymentActivities({ url: providers.url, timeoutMs: 1000 });
  });
  after(async () => {
    await providers.close();
    await db.pool.end();
  });
  const charge = (key: string, over: Record<string, unknown> = {}) => ({
    key,
    orderId: 'o',
    customerId: 'cus',
    amountMinor: 500,
    currency: 'EUR',
    ...over,
  });

  it('maps 402 to a non-retryable PaymentDeclined', async () => {
    const err = await failureOf(
      payments.chargePayment(charge(uniqueName('k'), { customerId: 'declined-1' })),
    );
    assert.ok(err instanceof ApplicationFailure);
    assert.equal(err.type, 'PaymentDeclined');
    assert.equal(err.nonRetryable, true);
  });

  it('maps 422 to a non-retryable failure naming the key', async () => {
    const key = uniqueName('k');
    await payments.chargePayment(charge(key));
    const err = await failureOf(payments.chargePayment(charge(key, { amountMinor: 501 })));
    assert.ok(err instanceof ApplicationFailure);
    assert.equal(err.type, 'IdempotencyKeyReused');
    assert.equal(err.nonRetryable, true);
    assert.match(err.message, new RegExp(key));
  });

  it('maps 5xx, 409 and timeouts to retryable named errors', async () => {
    await setFaults(providers, { endpoints: { charges: { failBeforeCommitRate: 1, limit: 1 } } });
    const e500 = await failureOf(payments.chargePayment(charge(uniqueName('k'))));
    assert.ok(e500 instanceof ProviderUnavailableError);
    assert.equal(e500.status, 500);

    await setFaults(providers, { endpoints: { charges: { latencyMs: 1500 } } });
    const key = uniqueName('k');
    const slow = failureOf(payments.chargePayment(charge(key)));
    const timeout = await slow;
    assert.ok(timeout instanceof ProviderTimeoutError, String(timeout));
    assert.equal(timeout.idempotencyKey, key);
    // The first request still holds the lease: a retry now is told to wait (409).
    const inUse = await failureOf(payments.chargePayment(charge(key)));
    assert.ok(inUse instanceof IdempotencyKeyInUseError, String(inUse));
    await setFaults(providers, { endpoints: { charges: {} } });
  });

  it('refunds by order (once) and reports when there is nothing to refund', async () => {
    const orderId = uniqueName('o');
    const { chargeId } = await payments.chargePayment(charge(uniqueName('k'), { orderId }));
    const refund = await payments.refundPayment({ key: uniqueName('k'), orderId });
    assert.equal(refund.refunded, true);
    assert.equal(refund.amountMinor, 500);
    assert.deepEqual(refund.chargeIds, [chargeId]);
    const byCharge = await payments.refundPayment({ key: uniqueName('k'), orderId, chargeId });
    assert.deepEqual(byCharge.chargeIds, [], 'nothing refunded twice');
    assert.deepEqual(byCharge.alreadyRefundedChargeIds, [chargeId]);
    assert.deepEqual(await payments.refundPayment({ key: uniqueName('k'), orderId: 'none' }), {
      refunded: false,
      chargeIds: [],
      refundIds: [],
      amountMinor: 0,
      alreadyRefundedChargeIds: [],
    });
  });

  it('sends an email once per key', async () => {
    const email = createEmailActivities({ url: providers.url });
    const input = {
      key: uniqueName('k'),
      orderId: 'o',
      to: 'a@example.com',
      subject: 's',
      body: 'b',
    };
    const first = await email.sendEmail(input);
    assert.deepEqual(await email.sendEmail(input), first);
  });
});
