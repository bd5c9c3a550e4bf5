/**
 * The order domain's business invariants, stated once (docs/architecture.md, "Invariants").
 * The demo and chaos (harness/pipeline/invariants.ts), reconcile (src/reconcile/classify-orders.ts)
 * and the peers bench (harness/bench/peers/invariants.ts) read their evidence their own way, from the
 * effects' own records (the providers' ledgers, the reservations), never from what a run says
 * it did, and judge it here. Pure.
 */

/** How one order's effects look, and how the order ended as far as the caller knows. */
export interface OrderEvidence {
  /**
   * How the order ended: `completed`, `rejected`, `declined`, `cancelled`, or the step of a
   * run that did not own it (`duplicate`). Undefined: not known, so its net charge is not
   * judged.
   */
  outcome?: string;
  /** Cancelled (an OrderCancelled event, an operator, or its claim settled so). */
  cancelled: boolean;
  /** The order's total in minor units, when known. */
  totalMinor?: number;
  charges: ReadonlyArray<{ id?: string; amountMinor: number }>;
  refunds: ReadonlyArray<{ chargeId?: string; amountMinor: number }>;
  emails: number;
  /** Its reservations, when the caller reads them (undefined: not judged). */
  reservations?: ReadonlyArray<{ key: string; status?: string }>;
}

/** The invariants: each breach names one. */
export type OrderInvariant =
  /** At most one charge (a second one, refunded or not, is a second effect on the customer). */
  | 'one-charge'
  /** At most one refund. */
  | 'one-refund'
  /** An order that stands is charged exactly its total; one that ended otherwise, nothing. */
  | 'net-charge'
  /** A cancelled order is refunded whatever it was charged. */
  | 'refund-missing'
  /** At most one confirmation email. */
  | 'one-email'
  /** An order that stands sent its confirmation email. */
  | 'email-sent'
  /** At most one reservation. */
  | 'one-reservation'
  /** An order that stands holds its reservation. */
  | 'reservation-held'
  /** An order unwound (cancelled, declined, rejected) holds no stock. */
  | 'stock-restored';

export interface OrderBreach {
  invariant: OrderInvariant;
  detail: string;
}

/** Outcomes after which nothing may stay charged or reserved. */
export const UNWOUND_OUTCOMES: ReadonlySet<string> = new Set(['declined', 'rejected', 'cancelled']);

/** An order stands when it completed and was not cancelled: it keeps its charge and stock. */
export function orderStands(e: Pick<OrderEvidence, 'outcome' | 'cancelled'>): boolean {
  return e.outcome === 'completed' && !e.cancelled;
}

/** Net charge of an order: charges minus refunds, and the charges no refund undid. */
export function netChargeOf(e: Pick<OrderEvidence, 'charges' | 'refunds'>): {
  netMinor: number;
  unrefunded: number;
} {
  const refunded = new Set(e.refunds.map((r) => r.chargeId));
  const charged = e.charges.reduce((s, c) => s + c.amountMinor, 0);
  const returned = e.refunds.reduce((s, r) => s + r.amountMinor, 0);
  // Without charge IDs (a reader that does not have them), a refund undoes one charge.
  const byId = e.charges.every((c) => c.id !== undefined);
  return {
    netMinor: charged - returned,
    unrefunded: byId
      ? e.charges.filter((c) => !refunded.has(c.id)).length
      : Math.max(0, e.charges.length - e.refunds.length),
  };
}

/** Every invariant the evidence breaks (empty: the order is sound). */
export function judgeOrder(e: OrderEvidence): OrderBreach[] {
  const out: OrderBreach[] = [];
  const breach = (invariant: OrderInvariant, detail: string) => out.push({ invariant, detail });
  const stands = orderStands(e);
  const { netMinor, unrefunded } = netChargeOf(e);
  const reservations = e.reservations;

  if (reservations && reservations.length > 1)
    breach(
      'one-reservation',
      `${reservations.length} reservations (${reservations.map((r) => r.key).join(', ')})`,
    );
  if (unrefunded > 1)
    breach(
      'one-charge',
      `${unrefunded} charges not refunded (${e.charges.length} charges, ${e.refunds.length} refunds)`,
    );
  else if (e.charges.length > 1)
    breach(
      'one-charge',
      `${e.charges.length} charges (${e.refunds.length} refunds): charged more than once`,
    );
  else if (e.refunds.length > 1) breach('one-refund', `${e.refunds.length} refunds`);
  if (e.emails > 1) breach('one-email', `${e.emails} confirmation emails`);

  if (stands) {
    if (e.totalMinor !== undefined && netMinor !== e.totalMinor)
      breach('net-charge', `completed with net charge ${netMinor} ≠ total ${e.totalMinor}`);
    if (e.emails === 0) breach('email-sent', 'completed without its confirmation email');
    if (reservations && reservations.length === 0)
      breach('reservation-held', 'completed without a reservation');
  } else if (e.cancelled) {
    if (netMinor > 0) breach('refund-missing', `cancelled but net charge is ${netMinor}`);
    else if (netMinor < 0) breach('net-charge', `cancelled with net charge ${netMinor} ≠ 0`);
  } else if (e.outcome !== undefined && netMinor !== 0) {
    breach('net-charge', `${e.outcome} with net charge ${netMinor} ≠ 0`);
  }
  if (e.cancelled || UNWOUND_OUTCOMES.has(e.outcome ?? '')) {
    for (const r of reservations ?? [])
      if (r.status !== 'released')
        breach(
          'stock-restored',
          `${e.cancelled ? 'cancelled' : e.outcome} but reservation ${r.key} is still ${r.status}`,
        );
  }
  return out;
}
