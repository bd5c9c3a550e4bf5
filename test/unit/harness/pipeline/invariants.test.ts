import { strict as assert } from 'node:assert';
import {
  checkInvariants,
  type OrderFacts,
  type PayoutFacts,
} from '../../../../harness/pipeline/invariants';

const data = {
  orderId: 'o1',
  customerId: 'c',
  email: 'c@example.com',
  currency: 'EUR',
  items: [{ sku: 'S', quantity: 2, unitPriceMinor: 1250 }],
  totalMinor: 2500,
};

const check = (o: OrderFacts, taken = 2) =>
  checkInvariants({
    orders: new Map([['o1', o]]),
    initialStock: new Map([['S', 10]]),
    finalStock: new Map([['S', 10 - taken]]),
    poisonProduced: 0,
    poisonDeadLettered: 0,
  });

describe('demo invariants: an order is judged by its claim once its run is gone', () => {
  const charged = { charges: [{ amountMinor: 2500 }], refunds: [], emails: [{}] };

  it('a completed order whose only run left ended duplicate (its owner deleted) stands', () => {
    const afterRetention: OrderFacts = {
      data,
      step: 'duplicate',
      cancelled: false,
      effects: charged,
    };
    assert.deepEqual(check({ ...afterRetention, settled: 'completed' }), []);
    // Without the claim the same facts read as an order that never stood.
    assert.deepEqual(check(afterRetention), [
      'o1: duplicate with net charge 2500 ≠ 0',
      'S: stock decremented by 2, orders that stand took 0',
    ]);
  });

  it('a refunded order charged and refunded again is two charges and two refunds', () => {
    const twice = {
      charges: [{ amountMinor: 2500 }, { amountMinor: 2500 }],
      refunds: [{ amountMinor: 2500 }, { amountMinor: 2500 }],
      emails: [{}],
    };
    assert.deepEqual(
      check({ data, step: 'duplicate', settled: 'refunded', cancelled: true, effects: twice }, 0),
      ['o1: 2 charges (2 refunds): charged more than once'],
    );
  });
});

describe('demo invariants: payouts beside orders, judged by the payout invariants', () => {
  const payoutData = {
    payoutId: 'p1',
    beneficiaryId: 'b',
    email: 'b@example.com',
    amountMinor: 4200,
    currency: 'EUR',
  };
  const paid: PayoutFacts = {
    data: payoutData,
    runs: [{ workflowId: 'PayoutRequested:p1@1', step: 'completed' }],
    cancelled: false,
    effects: { charges: [{ amountMinor: 4200 }], refunds: [], emails: [{}] },
  };
  const checkPayouts = (p: PayoutFacts) =>
    checkInvariants({
      orders: new Map(),
      payouts: new Map([['p1', p]]),
      initialStock: new Map(),
      finalStock: new Map(),
      poisonProduced: 0,
      poisonDeadLettered: 0,
    });

  it('a paid payout, and one whose version bump ended duplicate, hold', () => {
    assert.deepEqual(checkPayouts(paid), []);
    const bumped = { ...paid, runs: [...paid.runs, { workflowId: 'v2', step: 'duplicate' }] };
    assert.deepEqual(checkPayouts(bumped), []);
  });

  it('a cancelled payout not reversed, a second transfer, a second acting run: each named', () => {
    assert.deepEqual(checkPayouts({ ...paid, cancelled: true }), [
      'p1: cancelled but net transfer is 4200',
    ]);
    const twice = {
      charges: [{ amountMinor: 4200 }, { amountMinor: 4200 }],
      refunds: [],
      emails: [{}],
    };
    assert.deepEqual(checkPayouts({ ...paid, effects: twice }), [
      'p1: 2 transfers',
      'p1: completed with net transfer 8400 ≠ amount 4200',
    ]);
    const acted = { ...paid, runs: [...paid.runs, { workflowId: 'v2', step: 'completed' }] };
    assert.deepEqual(checkPayouts(acted), [
      'p1: 2 runs acted: PayoutRequested:p1@1 (completed), v2 (completed)',
    ]);
  });

  it('judges by the claim once the owner is gone: reversed is a cancellation', () => {
    const reversed = {
      ...paid,
      runs: [{ workflowId: 'PayoutRequested:p1@1', step: 'duplicate' }],
      settled: 'reversed',
      effects: { charges: [{ amountMinor: 4200 }], refunds: [{ amountMinor: 4200 }], emails: [{}] },
    };
    assert.deepEqual(checkPayouts(reversed), []);
    assert.deepEqual(checkPayouts({ ...reversed, settled: undefined }), [
      'p1: no payout run owns it and no claim settled it',
    ]);
  });
});
