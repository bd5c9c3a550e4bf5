/**
 * The invariant check of `npm run bench:peers`, the same for every system: read from the
 * providers' ledgers and the inventory's reservations (never from what a system says it did),
 * every order of the stream has exactly one charge of exactly its total, exactly one
 * confirmation email and exactly one reservation, and nothing was charged, mailed or
 * reserved for an order the stream does not contain. A fast system that double-charges fails.
 */

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
    const c = charges.get(orderId) ?? [];
    if (c.length !== 1) violations.push(`${orderId}: ${c.length} charges`);
    else if (c[0]!.amountMinor !== total)
      violations.push(`${orderId}: charged ${c[0]!.amountMinor}, total ${total}`);
    const e = emails.get(orderId)?.length ?? 0;
    if (e !== 1) violations.push(`${orderId}: ${e} emails`);
    const r = reservations.get(orderId)?.length ?? 0;
    if (r !== 1) violations.push(`${orderId}: ${r} reservations`);
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
