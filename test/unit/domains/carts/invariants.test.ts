import { strict as assert } from 'node:assert';
import {
  cartOutcomeOfSettlement,
  judgeCart,
  type CartEvidence,
} from '../../../../src/domains/carts/invariants';
import { CART_MAILS } from '../../../../src/domains/carts/workflows/cart-names';

const hold = (sku: string, released = false) => ({ id: `h-${sku}`, sku, released });
const charge = (id: string, amountMinor = 3000) => ({ id, amountMinor });
const refund = (chargeId: string, amountMinor = 3000) => ({ chargeId, amountMinor });
const fulfilled: CartEvidence = {
  outcome: 'completed',
  cancelled: false,
  lines: [{ sku: 'apple' }, { sku: 'pear' }, { sku: 'fig' }],
  totalMinor: 3000,
  holds: [hold('apple'), hold('pear'), hold('fig')],
  charges: [charge('c1')],
  refunds: [],
  shipments: [{ id: 's1', cancelled: false }],
  mails: [CART_MAILS.notice('k1'), CART_MAILS.receipt('k1')],
  published: ['cart:k1:announce'],
  runs: [{ workflowId: 'CartCheckedOut:k1@1', step: 'completed' }],
};
/** The same cart, cancelled after it had charged and shipped, and fully undone. */
const undone: CartEvidence = {
  ...fulfilled,
  outcome: 'cancelled',
  cancelled: true,
  holds: fulfilled.holds.map((h) => ({ ...h, released: true })),
  refunds: [refund('c1')],
  shipments: [{ id: 's1', cancelled: true }],
};
const invariants = (e: CartEvidence) => judgeCart(e).map((b) => b.invariant);

describe('cart invariants (one owner: demo, chaos and reconcile judge here)', () => {
  it('a fulfilled cart and a fully undone one are sound', () => {
    assert.deepEqual(judgeCart(fulfilled), []);
    assert.deepEqual(judgeCart(undone), []);
  });

  it('each line is held at most once, and only the lines of the cart', () => {
    assert.deepEqual(judgeCart({ ...fulfilled, holds: [...fulfilled.holds, hold('pear', true)] }), [
      { invariant: 'one-hold-per-line', detail: 'held more than once: pear ×2' },
    ]);
    assert.deepEqual(judgeCart({ ...fulfilled, holds: [...fulfilled.holds, hold('kiwi')] }), [
      { invariant: 'one-hold-per-line', detail: 'held kiwi, not a line' },
    ]);
  });

  it('one charge kept: primary or backup, never both, even when one was refunded', () => {
    assert.deepEqual(
      invariants({ ...fulfilled, charges: [charge('c1'), charge('c2')], refunds: [refund('c2')] }),
      ['one-charge'],
    );
    assert.deepEqual(invariants({ ...fulfilled, charges: [charge('c1'), charge('c2')] }), [
      'one-charge',
      'net-charge',
    ]);
  });

  it('each charge refunded once, never one of another cart, never above it', () => {
    assert.deepEqual(invariants({ ...undone, refunds: [refund('c1', 1500), refund('c1', 1500)] }), [
      'one-refund',
    ]);
    assert.deepEqual(invariants({ ...undone, refunds: [refund('c1'), refund('c9')] }), [
      'one-refund',
      'net-charge',
    ]);
    assert.deepEqual(invariants({ ...undone, refunds: [refund('c1', 4000)] }), [
      'one-refund',
      'net-charge',
    ]);
  });

  it('one shipment, one notice, one receipt, one event ID', () => {
    assert.deepEqual(
      invariants({
        ...fulfilled,
        shipments: [...fulfilled.shipments, { id: 's2', cancelled: true }],
        mails: [...fulfilled.mails, CART_MAILS.receipt('k1')],
        published: ['cart:k1:announce', 'cart:k1:announce-2'],
      }),
      ['one-shipment', 'one-mail', 'one-event'],
    );
    assert.deepEqual(
      judgeCart({ ...fulfilled, mails: [...fulfilled.mails, CART_MAILS.receipt('k1')] }),
      [{ invariant: 'one-mail', detail: 'mailed more than once: receipt ×2' }],
    );
  });

  it('only the owner acts: every other run of the cart ends duplicate', () => {
    const runs = [...fulfilled.runs!, { workflowId: 'CartCheckedOut:k1@2', step: 'duplicate' }];
    assert.deepEqual(judgeCart({ ...fulfilled, runs }), []);
    assert.deepEqual(
      invariants({ ...fulfilled, runs: [...runs, { workflowId: 'x', step: 'cancelled' }] }),
      ['duplicate-acted'],
    );
  });

  it('a cart that stands is charged its total and keeps every effect it must have made', () => {
    assert.deepEqual(judgeCart({ ...fulfilled, charges: [charge('c1', 2900)] }), [
      { invariant: 'net-charge', detail: 'completed with net charge 2900 ≠ total 3000' },
    ]);
    assert.deepEqual(
      judgeCart({
        ...fulfilled,
        holds: [hold('apple'), hold('pear', true)],
        shipments: [],
        mails: [CART_MAILS.notice('k1')],
        published: [],
      }),
      [
        {
          invariant: 'effect-missing',
          detail:
            'completed with line(s) pear, fig not held, no shipment, no receipt, no CartFulfilled',
        },
      ],
    );
    // Events not read: not judged.
    assert.deepEqual(judgeCart({ ...fulfilled, published: undefined }), []);
  });

  it('a cart unwound released every hold, refunded every charge, cancelled its shipment', () => {
    assert.deepEqual(
      judgeCart({
        ...undone,
        holds: [hold('apple', true), hold('pear'), hold('fig')],
        refunds: [],
        shipments: [{ id: 's1', cancelled: false }],
      }),
      [
        { invariant: 'release-missing', detail: 'cancelled but pear, fig still held' },
        {
          invariant: 'undo-missing',
          detail: 'cancelled but net charge is 3000, 1 shipment(s) not cancelled',
        },
      ],
    );
    // Declined on both cards: nothing charged, and every hold released.
    const declined = { ...undone, outcome: 'declined', cancelled: false, charges: [], refunds: [] };
    assert.deepEqual(judgeCart({ ...declined, shipments: [] }), []);
    assert.deepEqual(invariants({ ...declined, holds: [hold('apple')], shipments: [] }), [
      'release-missing',
    ]);
    // Unknown ending: only what happened too often is judged.
    assert.deepEqual(judgeCart({ ...fulfilled, outcome: undefined, holds: [] }), []);
  });

  it('a reversed or unwound settlement stands for a cancellation', () => {
    assert.equal(cartOutcomeOfSettlement('reversed'), 'cancelled');
    assert.equal(cartOutcomeOfSettlement('unwound'), 'cancelled');
    assert.equal(cartOutcomeOfSettlement('declined'), 'declined');
  });
});
