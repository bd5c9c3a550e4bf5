import { strict as assert } from 'node:assert';
import { judgeOrder, type OrderEvidence } from '../../../../src/domains/orders/invariants';

const charge = (id: string, amountMinor = 2500) => ({ id, amountMinor });
const refund = (chargeId: string, amountMinor = 2500) => ({ chargeId, amountMinor });
const sound: OrderEvidence = {
  outcome: 'completed',
  cancelled: false,
  totalMinor: 2500,
  charges: [charge('c1')],
  refunds: [],
  emails: 1,
  reservations: [{ key: 'order:o1:reserve', status: 'reserved' }],
};
const invariants = (e: OrderEvidence) => judgeOrder(e).map((b) => b.invariant);

describe('order invariants (one owner: demo, chaos, reconcile and the peers bench judge here)', () => {
  it('a completed order with one charge of its total, one email and one reservation is sound', () => {
    assert.deepEqual(judgeOrder(sound), []);
  });

  it('a completed order: exactly its total, its email, its reservation, each once', () => {
    assert.deepEqual(invariants({ ...sound, charges: [charge('c1', 2400)] }), ['net-charge']);
    assert.deepEqual(invariants({ ...sound, emails: 0 }), ['email-sent']);
    assert.deepEqual(invariants({ ...sound, emails: 2 }), ['one-email']);
    assert.deepEqual(invariants({ ...sound, reservations: [] }), ['reservation-held']);
    assert.deepEqual(
      invariants({ ...sound, charges: [charge('c1'), charge('c2')], refunds: [refund('c2')] }),
      ['one-charge'],
      'a second charge refunded is still a second effect on the customer',
    );
  });

  it('a cancelled order holds no charge and no stock', () => {
    const cancelled = { ...sound, outcome: 'cancelled', cancelled: true };
    assert.deepEqual(invariants({ ...cancelled, refunds: [refund('c1')] }), ['stock-restored']);
    assert.deepEqual(
      judgeOrder({ ...cancelled, reservations: [{ key: 'k', status: 'released' }] }),
      [{ invariant: 'refund-missing', detail: 'cancelled but net charge is 2500' }],
    );
    // Cancelled after it completed: the claim says refunded, the outcome still reads completed.
    assert.deepEqual(invariants({ ...sound, cancelled: true, reservations: [] }), [
      'refund-missing',
    ]);
  });

  it('declined or rejected: nothing charged; an unknown outcome judges only the counts', () => {
    assert.deepEqual(invariants({ ...sound, outcome: 'declined', reservations: [] }), [
      'net-charge',
    ]);
    assert.deepEqual(invariants({ ...sound, outcome: undefined, emails: 2 }), ['one-email']);
  });
});
