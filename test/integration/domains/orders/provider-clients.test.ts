import { strict as assert } from 'node:assert';
import { ApplicationFailure } from '@temporalio/common';
import { createEmailActivities } from '../../../../src/domains/orders/activities/email';
import { createPaymentActivities } from '../../../../src/domains/orders/activities/payments';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  IdempotencyKeyInUseError,
  ProviderTimeoutError,
  ProviderUnavailableError,
  ProviderUnreachableError,
} from '../../../../src/activities/provider-http';
import type { TransientFailureDetails } from '../../../../src/activities/transient-failure';
import type { RunningProviders } from '../../../../harness/sandbox/server';
import { uniqueName } from '../../../support/services';
import {
  createTestDatabase,
  setFaults,
  startTestProviders,
  type TestDatabase,
} from '../../../support/providers';

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

  /** A transient failure: retryable, typed by the named error, carrying the window. */
  function transientCause(err: unknown, type: string): TransientFailureDetails {
    assert.ok(err instanceof ApplicationFailure, String(err));
    assert.equal(err.type, type);
    assert.equal(err.nonRetryable, false);
    const details = err.details?.[0] as TransientFailureDetails;
    assert.equal(details.transient, true);
    assert.equal(details.windowMs, 3_600_000, 'the default window');
    return details;
  }

  it('maps 5xx, 409 and timeouts to transient failures wrapping named errors', async () => {
    await setFaults(providers, { endpoints: { charges: { failBeforeCommitRate: 1, limit: 1 } } });
    const e500 = await failureOf(payments.chargePayment(charge(uniqueName('k'))));
    assert.equal(transientCause(e500, 'ProviderUnavailableError').status, 500);
    assert.ok((e500 as ApplicationFailure).cause instanceof ProviderUnavailableError);

    await setFaults(providers, { endpoints: { charges: { latencyMs: 1500 } } });
    const key = uniqueName('k');
    const timeout = await failureOf(payments.chargePayment(charge(key)));
    assert.equal(transientCause(timeout, 'ProviderTimeoutError').key, key);
    assert.ok((timeout as ApplicationFailure).cause instanceof ProviderTimeoutError);
    // The first request still holds the lease: a retry now is told to wait (409).
    const inUse = await failureOf(payments.chargePayment(charge(key)));
    transientCause(inUse, 'IdempotencyKeyInUseError');
    assert.ok((inUse as ApplicationFailure).cause instanceof IdempotencyKeyInUseError);
    await setFaults(providers, { endpoints: { charges: {} } });
  });

  it('maps connection refused to ProviderUnreachableError and 429 Retry-After to nextRetryDelay', async () => {
    // A port nobody listens on: bind one, note it, close it.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const down = createPaymentActivities({
      url: `http://127.0.0.1:${deadPort}`,
      transientRetryWindowMs: 3_600_000,
    });
    const refused = await failureOf(down.chargePayment(charge(uniqueName('k'))));
    transientCause(refused, 'ProviderUnreachableError');
    assert.ok((refused as ApplicationFailure).cause instanceof ProviderUnreachableError);
    assert.match((refused as Error).message, /ECONNREFUSED/);

    const limited = createServer((_req, res) => {
      res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((r) => limited.listen(0, '127.0.0.1', r));
    try {
      const port = (limited.address() as AddressInfo).port;
      const slowDown = createPaymentActivities({ url: `http://127.0.0.1:${port}` });
      const err = await failureOf(slowDown.chargePayment(charge(uniqueName('k'))));
      assert.equal(transientCause(err, 'ProviderRateLimitedError').retryAfterMs, 7000);
      assert.equal((err as ApplicationFailure).nextRetryDelay, 7000);
    } finally {
      await new Promise((r) => limited.close(r));
    }
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
