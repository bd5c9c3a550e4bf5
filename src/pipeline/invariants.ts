import type { SettledState } from '../db/order-claim';
import type { OrderPlacedData } from '../events/order-events';

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

/** The outcome a settlement stands for (refunded: cancelled after it had closed). */
function outcomeOf(o: OrderFacts): { step?: string; cancelled: boolean } {
  if (o.settled === undefined) return { step: o.step, cancelled: o.cancelled };
  const unwound = o.settled === 'cancelled' || o.settled === 'refunded';
  return { step: unwound ? 'cancelled' : o.settled, cancelled: o.cancelled || unwound };
}

/**
 * The invariants (docs/architecture.md, "Invariants") for one run, as violations (empty = all
 * hold): at most one charge (and refund) per order, a net charge of exactly the total for an
 * order that stands, none for one that did not complete or was cancelled; at most one
 * confirmation email; stock decremented exactly by the orders that stand; every poison
 * message dead-lettered. An order is judged by its claim's settlement when it has one (its
 * owner's run may be gone), else by its workflow's final step.
 */
export function checkInvariants(input: {
  orders: Map<string, OrderFacts>;
  initialStock: Map<string, number>;
  finalStock: Map<string, number>;
  poisonProduced: number;
  poisonDeadLettered: number;
}): string[] {
  const violations: string[] = [];
  const expectedTaken = new Map<string, number>();
  for (const [orderId, facts] of input.orders) {
    const o = { ...facts, ...outcomeOf(facts) };
    if (o.step === undefined) {
      violations.push(`${orderId}: no workflow`);
      continue;
    }
    const charged = o.effects.charges.reduce((s, c) => s + c.amountMinor, 0);
    const refunded = o.effects.refunds.reduce((s, r) => s + r.amountMinor, 0);
    const net = charged - refunded;
    const stands = o.step === 'completed' && !o.cancelled;
    if (o.effects.charges.length > 1)
      violations.push(`${orderId}: ${o.effects.charges.length} charges`);
    if (o.effects.refunds.length > 1)
      violations.push(`${orderId}: ${o.effects.refunds.length} refunds`);
    if (stands && net !== o.data.totalMinor)
      violations.push(`${orderId}: completed but net charge ${net} ≠ total ${o.data.totalMinor}`);
    if (!stands && net !== 0)
      violations.push(
        `${orderId}: ${o.step}${o.cancelled ? ' (cancelled)' : ''} but net charge ${net}`,
      );
    if (o.effects.emails.length > 1)
      violations.push(`${orderId}: ${o.effects.emails.length} confirmation emails`);
    if (stands && o.effects.emails.length !== 1)
      violations.push(`${orderId}: completed without its confirmation email`);
    if (stands)
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
