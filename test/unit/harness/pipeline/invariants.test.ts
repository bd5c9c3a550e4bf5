import { strict as assert } from 'node:assert';
import { checkInvariants, type OrderFacts } from '../../../../harness/pipeline/invariants';

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
