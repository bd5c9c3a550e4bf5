import { strict as assert } from 'node:assert';
import { checkCart, type CartFacts } from '../../../../harness/pipeline/invariants';
import { CART_MAILS } from '../../../../src/domains/carts/workflows/cart-names';

const fulfilled: CartFacts = {
  data: {
    cartId: 'k1',
    customerId: 'c',
    email: 'c@example.com',
    currency: 'EUR',
    lines: [{ sku: 'apple', quantity: 2, unitPriceMinor: 500 }],
    totalMinor: 1000,
    primaryCard: 'tok_visa',
    address: '1 Quay Street',
  },
  runs: [{ workflowId: 'CartCheckedOut:k1@1', step: 'completed' }],
  cancelled: false,
  effects: {
    holds: [{ id: 'h1', sku: 'apple', releasedAt: null }],
    charges: [{ id: 'c1', amountMinor: 1000 }],
    refunds: [],
    shipments: [{ id: 's1', cancelledAt: null }],
    emails: [{ subject: CART_MAILS.notice('k1') }, { subject: CART_MAILS.receipt('k1') }],
  },
  published: ['cart:k1:announce'],
};

describe('demo invariants: a cart is judged by the cart invariants, by its claim once its run is gone', () => {
  it('a fulfilled cart is sound, after retention too (its claim says completed)', () => {
    assert.deepEqual(checkCart('k1', fulfilled), []);
    const afterRetention = { ...fulfilled, runs: [{ workflowId: 'x', step: 'duplicate' }] };
    assert.deepEqual(checkCart('k1', { ...afterRetention, settled: 'completed' }), []);
    assert.deepEqual(checkCart('k1', afterRetention), [
      'k1: no cart run owns it and no claim settled it',
    ]);
  });

  it('a cart reversed after it closed must have undone everything', () => {
    assert.deepEqual(checkCart('k1', { ...fulfilled, settled: 'reversed' }), [
      'k1: release-missing: cancelled but apple still held',
      'k1: undo-missing: cancelled but net charge is 1000, 1 shipment(s) not cancelled',
    ]);
  });
});
