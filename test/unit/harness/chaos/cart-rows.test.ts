import { strict as assert } from 'node:assert';
import { cartInvariantRows } from '../../../../harness/chaos/cart-rows';
import { CART_INVARIANTS } from '../../../../src/domains/carts/invariants';

describe('chaos: the cart rows of the invariant table', () => {
  it('lists every cart invariant and counts the breaches reconcile filed under each', () => {
    const rows = cartInvariantRows([
      {
        class: 'stock-not-restored',
        subject: 'k1',
        detail: '',
        invariant: 'carts/release-missing',
      },
      {
        class: 'stock-not-restored',
        subject: 'k2',
        detail: '',
        invariant: 'carts/release-missing',
      },
      { class: 'refund-missing', subject: 'o1', detail: '' },
      { class: 'refund-missing', subject: 'p1', detail: '', invariant: 'payouts/reversal-missing' },
    ]);
    assert.deepEqual(
      rows.map(([name]) => name),
      [...CART_INVARIANTS],
    );
    assert.deepEqual(
      rows.filter(([, n]) => n > 0),
      [['release-missing', 2]],
    );
  });
});
