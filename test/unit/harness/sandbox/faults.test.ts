import { strict as assert } from 'node:assert';
import { FaultInjector } from '../../../../harness/sandbox/faults';
import { fingerprintRequest } from '../../../../harness/sandbox/http-util';
import { isDeclined } from '../../../../harness/sandbox/payment-routes';
import { createPrng } from '../../../../src/util/prng';
import { stepKey, stepKeys } from '../../../../src/domains/orders/workflows/order-definitions';

describe('sandbox provider pieces (pure)', () => {
  it('the PRNG is deterministic per seed and differs between seeds', () => {
    const draw = (seed: number) => Array.from({ length: 5 }, createPrng(seed));
    assert.deepEqual(draw(7), draw(7));
    assert.notDeepEqual(draw(7), draw(8));
    assert.ok(draw(9).every((x) => x >= 0 && x < 1));
  });

  it('injects faults reproducibly from a seed, at about the configured rate', () => {
    const run = () => {
      const f = new FaultInjector();
      f.configure({ seed: 123, endpoints: { charges: { failBeforeCommitRate: 0.3 } } });
      return Array.from({ length: 1000 }, () => f.decide('charges').failBeforeCommit);
    };
    const a = run();
    assert.deepEqual(a, run(), 'same seed, same faults');
    const rate = a.filter(Boolean).length / a.length;
    assert.ok(rate > 0.25 && rate < 0.35, `rate ${rate}`);
  });

  it('stops injecting after `limit` faults and keeps other endpoints healthy', () => {
    const f = new FaultInjector(1);
    f.configure({ endpoints: { emails: { timeoutAfterCommitRate: 1, limit: 2 } } });
    const decisions = Array.from({ length: 4 }, () => f.decide('emails').timeoutAfterCommit);
    assert.deepEqual(decisions, [true, true, false, false]);
    assert.equal(f.decide('charges').failBeforeCommit, false);
    assert.equal(f.describe().endpoints.emails!.injected, 2);
    assert.throws(() => f.configure({ endpoints: { emails: { failBeforeCommitRate: 2 } } }));
  });

  it('fingerprints ignore key order but not values, method or path', () => {
    const a = fingerprintRequest('POST', '/v1/charges', { a: 1, b: { c: 2, d: 3 } });
    assert.equal(a, fingerprintRequest('POST', '/v1/charges', { b: { d: 3, c: 2 }, a: 1 }));
    assert.notEqual(a, fingerprintRequest('POST', '/v1/charges', { a: 2, b: { c: 2, d: 3 } }));
    assert.notEqual(a, fingerprintRequest('POST', '/v1/refunds', { a: 1, b: { c: 2, d: 3 } }));
  });

  it('declines by customer prefix or test token only', () => {
    assert.equal(isDeclined({ customerId: 'declined-42' }), true);
    assert.equal(isDeclined({ customerId: 'cus_1', source: 'tok_chargeDeclined' }), true);
    assert.equal(isDeclined({ customerId: 'cus_declined' }), false);
  });

  it('derives step keys from the order ID only', () => {
    assert.equal(stepKey('o-1', 'charge'), 'order:o-1:charge');
    assert.deepEqual(stepKeys('o'), stepKeys('o'));
    assert.equal(stepKeys('o').release, 'order:o:release');
  });
});
