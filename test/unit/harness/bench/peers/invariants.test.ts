import { strict as assert } from 'node:assert';
import { OrderFeed } from '../../../../../harness/bench/peers/feed';
import {
  checkPeerInvariants,
  type PeerLedger,
} from '../../../../../harness/bench/peers/invariants';

/** A ledger with exactly one of each effect per order: what a correct system leaves. */
function cleanLedger(totals: Map<string, number>): PeerLedger {
  const ids = [...totals.keys()];
  return {
    charges: ids.map((orderId) => ({ orderId, amountMinor: totals.get(orderId)! })),
    emails: ids.map((orderId) => ({ orderId })),
    reservations: ids.map((orderId) => ({ orderId })),
  };
}

describe('bench:peers invariant check', () => {
  const totals = new Map([
    ['o-1', 2500],
    ['o-2', 1350],
    ['o-3', 4100],
  ]);

  it('holds for one charge, one email and one reservation per order', () => {
    const report = checkPeerInvariants(totals, cleanLedger(totals));
    assert.equal(report.ok, true, report.violations.join('; '));
    assert.deepEqual([report.charges, report.emails, report.reservations], [3, 3, 3]);
  });

  it('fails when a system double-charges an order', () => {
    const ledger = cleanLedger(totals);
    ledger.charges.push({ orderId: 'o-2', amountMinor: 1350 });
    const report = checkPeerInvariants(totals, ledger);
    assert.equal(report.ok, false);
    assert.deepEqual(report.violations, [
      'o-2: 2 charges not refunded (2 charges, 0 refunds)',
      'o-2: completed with net charge 2700 ≠ total 1350',
    ]);
  });

  it('fails on a wrong amount, a missing or second email, a missing reservation, a stray charge', () => {
    const ledger = cleanLedger(totals);
    ledger.charges[0] = { orderId: 'o-1', amountMinor: 2499 };
    ledger.emails.push({ orderId: 'o-3' });
    ledger.emails.splice(1, 1);
    ledger.reservations.pop();
    ledger.charges.push({ orderId: 'o-9', amountMinor: 100 });
    const report = checkPeerInvariants(totals, ledger);
    assert.deepEqual(report.violations.sort(), [
      'o-1: completed with net charge 2499 ≠ total 2500',
      'o-2: completed without its confirmation email',
      'o-3: 2 confirmation emails',
      'o-3: completed without a reservation',
      'o-9: charge for an order not produced',
    ]);
  });

  it('feeds every system the same stream: duplicates and resends, same records for the same seed', () => {
    const a = new OrderFeed(42, 'a').take(600);
    const b = new OrderFeed(42, 'b').take(600);
    const strip = (records: (typeof a)[number]['records'], prefix: string) =>
      records.map((r) => r.value.replaceAll(`${prefix}-`, 'X-'));
    assert.deepEqual(
      a.map((o) => strip(o.records, 'a')),
      b.map((o) => strip(o.records, 'b')),
    );
    const records = a.flatMap((o) => o.records).length;
    // 20 % duplicate deliveries and 2 % resends: well above the clean one record per order.
    assert.ok(records > 600 * 1.15 && records < 600 * 1.3, `${records} records for 600 orders`);
  });
});
