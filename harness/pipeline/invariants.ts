import type { SettledState } from '../../src/domains/orders/workflows/order-claim';
import type { OrderPlacedData } from '../../src/domains/orders/order-events';
import { judgeOrder, orderStands } from '../../src/domains/orders/invariants';
import type { PayoutRequestedData } from '../../src/domains/payouts/payout-events';
import { judgePayout, payoutOutcomeOfSettlement } from '../../src/domains/payouts/invariants';
import type { CartCheckedOutData } from '../../src/domains/carts/cart-events';
import { cartOutcomeOfSettlement, judgeCart } from '../../src/domains/carts/invariants';
import type { OrderEffects as LedgerEffects } from '../../src/reconcile/facts';

/** What the providers' ledgers say about one order. */
export interface OrderEffects {
  charges: Array<{ amountMinor: number }>;
  refunds: Array<{ amountMinor: number }>;
  emails: unknown[];
}

export interface OrderFacts {
  data: OrderPlacedData;
  /** Final OrderStep of the order's workflow (undefined: no workflow). */
  step?: string;
  /**
   * How the order's claim says it settled. It outlives the runs: after Temporal's retention
   * deleted the owner, the run left under its workflow ID ended `duplicate`, and only the
   * claim says what happened to the order. When present it is the order's outcome.
   */
  settled?: SettledState;
  cancelled: boolean;
  effects: OrderEffects;
}

/** What the demo knows of one payout: the provider's ledger under its ID, its runs, its claim. */
export interface PayoutFacts {
  data: PayoutRequestedData;
  /** How each closed payout run of it ended (its step). */
  runs: Array<{ workflowId: string; step?: string }>;
  /** How its claim says it settled (the owner's word, kept when its run is gone). */
  settled?: string;
  cancelled: boolean;
  /** Transfers (charges), reversals (refunds) and notices (emails) under the payout's ID. */
  effects: OrderEffects;
}

/** What the demo knows of one cart: the providers' ledgers under its ID, its events, runs, claim. */
export interface CartFacts {
  data: CartCheckedOutData;
  /** How each closed cart run of it ended (its step). */
  runs: Array<{ workflowId: string; step?: string }>;
  /** How its claim says it settled (the owner's word, kept when its run is gone). */
  settled?: string;
  cancelled: boolean;
  /** Holds, charges, refunds, shipments and mails under the cart's ID. */
  effects: LedgerEffects;
  /** The distinct CartFulfilled event IDs published for it. */
  published: readonly string[];
}

/** One cart judged by the cart domain's invariants (src/domains/carts/invariants.ts). */
export function checkCart(cartId: string, k: CartFacts): string[] {
  const owner = k.runs.find((r) => r.step !== 'duplicate' && r.step !== 'cart_conflict');
  const outcome = k.settled !== undefined ? cartOutcomeOfSettlement(k.settled) : owner?.step;
  if (outcome === undefined) return [`${cartId}: no cart run owns it and no claim settled it`];
  return judgeCart({
    outcome,
    cancelled: k.cancelled || outcome === 'cancelled',
    lines: k.data.lines,
    totalMinor: k.data.totalMinor,
    holds: (k.effects.holds ?? []).map((h) => ({ ...h, released: !!h.releasedAt })),
    charges: k.effects.charges,
    refunds: k.effects.refunds,
    shipments: (k.effects.shipments ?? []).map((s) => ({ id: s.id, cancelled: !!s.cancelledAt })),
    mails: k.effects.emails.map((m) => m.subject ?? ''),
    published: k.published,
    runs: k.runs,
  }).map((b) => `${cartId}: ${b.invariant}: ${b.detail}`);
}

/** One payout judged by the payout domain's invariants (src/domains/payouts/invariants.ts). */
export function checkPayout(payoutId: string, p: PayoutFacts): string[] {
  const owner = p.runs.find((r) => r.step !== 'duplicate' && r.step !== 'payout_conflict');
  const outcome = p.settled !== undefined ? payoutOutcomeOfSettlement(p.settled) : owner?.step;
  if (outcome === undefined) return [`${payoutId}: no payout run owns it and no claim settled it`];
  return judgePayout({
    outcome,
    cancelled: p.cancelled || outcome === 'cancelled',
    amountMinor: p.data.amountMinor,
    transfers: p.effects.charges,
    reversals: p.effects.refunds,
    notices: p.effects.emails.length,
    runs: p.runs,
  }).map((b) => `${payoutId}: ${b.detail}`);
}

/** The outcome a settlement stands for (refunded: cancelled after it had closed). */
function outcomeOf(o: OrderFacts): { step?: string; cancelled: boolean } {
  if (o.settled === undefined) return { step: o.step, cancelled: o.cancelled };
  const unwound = o.settled === 'cancelled' || o.settled === 'refunded';
  return { step: unwound ? 'cancelled' : o.settled, cancelled: o.cancelled || unwound };
}

/**
 * The invariants for one run, as violations (empty = all hold): each order judged by the
 * order domain's invariants (src/domains/orders/invariants.ts), each payout by the payout
 * domain's (src/domains/payouts/invariants.ts), each cart by the cart domain's
 * (src/domains/carts/invariants.ts), stock decremented exactly by
 * the orders that stand, every poison message dead-lettered. An order is judged by its
 * claim's settlement when it has one (its owner's run may be gone), else by its workflow's
 * final step.
 */
export function checkInvariants(input: {
  orders: Map<string, OrderFacts>;
  initialStock: Map<string, number>;
  finalStock: Map<string, number>;
  /** The run's payouts, each judged by the payout invariants. Default: none. */
  payouts?: Map<string, PayoutFacts>;
  /** The run's carts, each judged by the cart invariants. Default: none. */
  carts?: Map<string, CartFacts>;
  poisonProduced: number;
  poisonDeadLettered: number;
}): string[] {
  const violations: string[] = [];
  for (const [payoutId, facts] of input.payouts ?? [])
    violations.push(...checkPayout(payoutId, facts));
  for (const [cartId, facts] of input.carts ?? []) violations.push(...checkCart(cartId, facts));
  const expectedTaken = new Map<string, number>();
  for (const [orderId, facts] of input.orders) {
    const o = { ...facts, ...outcomeOf(facts) };
    if (o.step === undefined) {
      violations.push(`${orderId}: no workflow`);
      continue;
    }
    const evidence = {
      outcome: o.step,
      cancelled: o.cancelled,
      totalMinor: o.data.totalMinor,
      charges: o.effects.charges,
      refunds: o.effects.refunds,
      emails: o.effects.emails.length,
    };
    for (const b of judgeOrder(evidence)) violations.push(`${orderId}: ${b.detail}`);
    if (orderStands(evidence))
      for (const line of o.data.items)
        expectedTaken.set(line.sku, (expectedTaken.get(line.sku) ?? 0) + line.quantity);
  }
  for (const [sku, initial] of input.initialStock) {
    const taken = initial - (input.finalStock.get(sku) ?? 0);
    const expected = expectedTaken.get(sku) ?? 0;
    if (taken !== expected)
      violations.push(`${sku}: stock decremented by ${taken}, orders that stand took ${expected}`);
  }
  if (input.poisonDeadLettered !== input.poisonProduced) {
    violations.push(
      `DLQ holds ${input.poisonDeadLettered} of ${input.poisonProduced} poison messages`,
    );
  }
  return violations;
}
