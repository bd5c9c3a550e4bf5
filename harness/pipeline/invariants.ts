import type { SettledState } from '../../src/domains/orders/workflows/order-claim';
import type { OrderPlacedData } from '../../src/domains/orders/order-events';
import { judgeOrder, orderStands } from '../../src/domains/orders/invariants';
import type { PayoutRequestedData } from '../../src/domains/payouts/payout-events';
import { judgePayout, payoutOutcomeOfSettlement } from '../../src/domains/payouts/invariants';

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
 * domain's (src/domains/payouts/invariants.ts), stock decremented exactly by
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
  poisonProduced: number;
  poisonDeadLettered: number;
}): string[] {
  const violations: string[] = [];
  for (const [payoutId, facts] of input.payouts ?? [])
    violations.push(...checkPayout(payoutId, facts));
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
