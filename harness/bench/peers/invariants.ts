/**
 * The invariant check of `npm run bench:peers`, the same for every system: read from the
 * providers' ledgers and the inventory's reservations (never from what a system says it did),
 * every order of the stream has exactly one charge of exactly its total, exactly one
 * confirmation email and exactly one reservation, and nothing was charged, mailed or
 * reserved for an order the stream does not contain. A fast system that double-charges fails.
 * The per-order rules are the order domain's (src/domains/orders/invariants.ts).
 */
import { judgeOrder } from '../../../src/domains/orders/invariants';

/** Effects found in the providers' and inventory's own tables, one row each. */
export interface PeerLedger {
  charges: Array<{ orderId: string; amountMinor: number }>;
  emails: Array<{ orderId: string }>;
  reservations: Array<{ orderId: string }>;
}

export interface InvariantReport {
  ok: boolean;
  orders: number;
  charges: number;
  emails: number;
  reservations: number;
  /** Every violation, in a stable order (first ones printed). */
  violations: string[];
}

function countBy<T extends { orderId: string }>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) {
    const list = out.get(r.orderId);
    if (list) list.push(r);
    else out.set(r.orderId, [r]);
  }
  return out;
}

/** `expected`: every order of the stream → its total in minor units. */
export function checkPeerInvariants(
  expected: ReadonlyMap<string, number>,
  ledger: PeerLedger,
): InvariantReport {
  const violations: string[] = [];
  const charges = countBy(ledger.charges);
  const emails = countBy(ledger.emails);
  const reservations = countBy(ledger.reservations);
  for (const [orderId, total] of expected) {
    // Every order of the stream must stand: judged by the order domain's invariants.
    const breaches = judgeOrder({
      outcome: 'completed',
      cancelled: false,
      totalMinor: total,
      charges: charges.get(orderId) ?? [],
      refunds: [],
      emails: emails.get(orderId)?.length ?? 0,
      reservations: (reservations.get(orderId) ?? []).map(() => ({ key: orderId })),
    });
    for (const b of breaches) violations.push(`${orderId}: ${b.detail}`);
  }
  for (const [what, byOrder] of [
    ['charge', charges],
    ['email', emails],
    ['reservation', reservations],
  ] as const) {
    for (const orderId of byOrder.keys())
      if (!expected.has(orderId)) violations.push(`${orderId}: ${what} for an order not produced`);
  }
  return {
    ok: violations.length === 0,
    orders: expected.size,
    charges: ledger.charges.length,
    emails: ledger.emails.length,
    reservations: ledger.reservations.length,
    violations,
  };
}
