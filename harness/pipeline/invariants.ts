import type { SettledState } from '../../src/domains/orders/workflows/order-claim';
import type { OrderPlacedData } from '../../src/domains/orders/order-events';
import { judgeOrder, orderStands } from '../../src/domains/orders/invariants';

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
 * The invariants for one run, as violations (empty = all hold): each order judged by the
 * order domain's invariants (src/domains/orders/invariants.ts), stock decremented exactly by
 * the orders that stand, every poison message dead-lettered. An order is judged by its
 * claim's settlement when it has one (its owner's run may be gone), else by its workflow's
 * final step.
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
