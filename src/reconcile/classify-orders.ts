import type {
  Discrepancy,
  OrderEffects,
  ReconcileFacts,
  ReservationFacts,
  TopicEvent,
  WorkflowFacts,
} from './facts';
import type { OrderClaim, SettledState } from '../domains/orders/workflows/order-claim';
import { EVENT_TYPES } from '../domains/orders/order-events';
import { WORKFLOW_TYPE } from '../domains/orders/workflows/workflow-types';
import {
  judgeOrder,
  netChargeOf,
  UNWOUND_OUTCOMES,
  type OrderInvariant,
} from '../domains/orders/invariants';

// The per-order rules of reconcile. Everything is grouped by the order ID that the rows
// themselves record (provider ledgers, reservations, the OrderId search attribute, data.orderId):
// never by parsing an idempotency key, so the rules hold whatever the key format, and an order
// run twice under two identities (a producer's resend) is still one order.

const ORDER_WORKFLOW = WORKFLOW_TYPE.orderFulfillment;
const ORDER_PLACED = EVENT_TYPES.orderPlaced;
const ORDER_CANCELLED = EVENT_TYPES.orderCancelled;
/**
 * OrderStep of a run that found its order owned by another run: `duplicate` (same payload, a
 * legitimate second workflow that acts on nothing) or `order_conflict` (different payload).
 * Neither is the order's owner, so neither's outcome says what happened to the order.
 */
const NOT_OWNER_STEPS = new Set(['duplicate', 'order_conflict']);
const CONFLICT_STEP = 'order_conflict';

/** The outcome a claim's settlement stands for (refunded: cancelled after it had closed). */
const OUTCOME_OF_SETTLEMENT: Record<SettledState, string> = {
  completed: 'completed',
  rejected: 'rejected',
  declined: 'declined',
  cancelled: 'cancelled',
  refunded: 'cancelled',
};

/** ` (owner W, run R, settled S)`: the claim behind a per-order discrepancy, when known. */
export function describeOwner(claim: OrderClaim | undefined): string {
  if (!claim) return '';
  const run = claim.runId !== undefined ? `, run ${claim.runId}` : '';
  return ` (owner ${claim.workflowId}${run}, ${claim.settled ? `settled ${claim.settled}` : 'not settled'})`;
}

/** Net charge of an order (the order domain's rule, src/domains/orders/invariants.ts). */
export const computeNetCharge = (effects: OrderEffects) => netChargeOf(effects);

export function groupBy<T>(
  items: readonly T[],
  keyOf: (item: T) => string | undefined,
): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

interface OrderContext {
  /** Valid OrderPlaced occurrences the bridge did not dead-letter, in topic order. */
  placed: TopicEvent[];
  workflows: WorkflowFacts[];
  reservations: ReservationFacts[];
  cancelledByEvent: boolean;
  claim?: OrderClaim;
}

const short = (fingerprint: string | undefined) => fingerprint?.slice(0, 12) ?? '?';

/**
 * order-conflict: the order was placed with different payloads by workflows that were started
 * (each would have acted on the order without the claim), or a run ended order-conflict. Judged
 * even while runs are in flight: the payloads are facts of the topic, not of progress.
 */
function classifyConflict(orderId: string, context: OrderContext, out: Discrepancy[]): void {
  const parts: string[] = [];
  const byPrint = groupBy(context.placed, (e) => e.fingerprint);
  if (byPrint.size > 1) {
    const runs = [...byPrint].map(
      ([print, events]) =>
        `${[...new Set(events.map((e) => e.workflowId))].join(', ')} (fingerprint ${short(print)})`,
    );
    parts.push(`placed with ${byPrint.size} different payloads: ${runs.join(' vs ')}`);
  }
  const conflicted = context.workflows.filter((w) => w.step === CONFLICT_STEP);
  if (conflicted.length > 0)
    parts.push(
      `${conflicted.map((w) => w.workflowId).join(', ')} ended order-conflict (nothing acted on)`,
    );
  if (parts.length > 0)
    out.push({ class: 'order-conflict', subject: orderId, detail: parts.join('; ') });
}

/** The reconcile class of each order invariant; the ones without a class are not reported. */
const CLASS_OF: Partial<Record<OrderInvariant, Discrepancy['class']>> = {
  'one-reservation': 'multiple-effects-per-order',
  'one-charge': 'multiple-effects-per-order',
  'one-refund': 'multiple-effects-per-order',
  'one-email': 'multiple-effects-per-order',
  'net-charge': 'charge-amount-mismatch',
  'refund-missing': 'refund-missing',
  'stock-restored': 'stock-not-restored',
  // email-sent and reservation-held: an operator's resolve may skip a step on purpose, and
  // reconcile reports effects that happened too often or were not undone, not skipped ones.
};

function classifyOrder(
  orderId: string,
  facts: ReconcileFacts,
  context: OrderContext,
  out: Discrepancy[],
): void {
  classifyConflict(orderId, context, out);
  // Effects of an order still in flight are not final; only stuck-order judges those.
  if (context.workflows.some((w) => w.status === 'RUNNING')) return;
  const orderRuns = context.workflows.filter((w) => w.type === ORDER_WORKFLOW);
  // The run whose outcome is the order's: not one that found the order owned, and not a
  // rejected one (out of stock: it reserved nothing, so another run may have taken the order
  // after it) when another run acted; among equals, the first placement's.
  const first = context.placed[0];
  const owners = orderRuns.filter((w) => !NOT_OWNER_STEPS.has(w.step ?? ''));
  const acted = owners.filter((w) => w.step !== 'rejected');
  const candidates = acted.length > 0 ? acted : owners;
  const run =
    candidates.find((w) => w.workflowId === first?.workflowId) ??
    candidates.at(0) ??
    orderRuns.at(0);
  // The owner's run may be gone (Temporal's retention) while its claim says how the order
  // ended; a run left under its workflow ID then ended duplicate, which says nothing.
  const { claim } = context;
  const settledAs = claim?.settled && OUTCOME_OF_SETTLEMENT[claim.settled];
  const outcome =
    (run?.step === undefined || NOT_OWNER_STEPS.has(run.step)) && settledAs ? settledAs : run?.step;
  const cancelled =
    context.cancelledByEvent || outcome === 'cancelled' || settledAs === 'cancelled';
  const effects = facts.effects.get(orderId) ?? { charges: [], refunds: [], emails: [] };
  const ownerNote = describeOwner(claim);
  // The total the owning run was placed with; a resend carries the same one.
  const total = (context.placed.find((e) => e.workflowId === run?.workflowId) ?? first)?.totalMinor;
  const known = outcome === 'completed' || UNWOUND_OUTCOMES.has(outcome ?? '');
  const breaches = judgeOrder({
    outcome: known ? outcome : undefined,
    cancelled,
    totalMinor: total,
    charges: effects.charges,
    refunds: effects.refunds,
    emails: effects.emails.length,
    reservations: context.reservations,
  });
  // The effects counted more than once are one discrepancy of the order, in one line.
  const multiple = breaches.filter((b) => CLASS_OF[b.invariant] === 'multiple-effects-per-order');
  if (multiple.length > 0)
    out.push({
      class: 'multiple-effects-per-order',
      subject: orderId,
      detail: multiple.map((b) => b.detail).join('; ') + ownerNote,
    });
  for (const b of breaches) {
    const cls = CLASS_OF[b.invariant];
    if (cls && cls !== 'multiple-effects-per-order')
      out.push({ class: cls, subject: orderId, detail: b.detail + ownerNote });
  }
}

/**
 * The per-order classes: multiple-effects-per-order, order-conflict, charge-amount-mismatch,
 * refund-missing, stock-not-restored. Every order that any source knows is judged, by its
 * owning run's outcome, or by its claim's settlement once that run is gone; each per-order
 * discrepancy names the claim (owner, run, settlement).
 */
export function classifyOrders(facts: ReconcileFacts, out: Discrepancy[]): void {
  const deadLettered = new Set(facts.dlq.flatMap((d) => (d.source ? [d.source] : [])));
  const placed = new Map<string, TopicEvent[]>();
  const cancelled = new Set<string>();
  for (const e of facts.events) {
    if (!e.orderId || deadLettered.has(e.coordinates)) continue;
    if (e.eventType === ORDER_PLACED) {
      const list = placed.get(e.orderId);
      if (list) list.push(e);
      else placed.set(e.orderId, [e]);
    }
    if (e.eventType === ORDER_CANCELLED) cancelled.add(e.orderId);
  }
  const workflowsByOrder = groupBy(facts.workflows, (w) => w.orderId);
  const reservationsByOrder = groupBy(facts.reservations, (r) => r.orderId);
  const claims = new Map((facts.claims ?? []).map((c) => [c.orderId, c]));
  const orderIds = new Set([
    ...placed.keys(),
    ...facts.workflows.filter((w) => w.type === ORDER_WORKFLOW && w.orderId).map((w) => w.orderId!),
    ...facts.effects.keys(),
    ...reservationsByOrder.keys(),
    ...claims.keys(),
  ]);
  for (const orderId of orderIds) {
    classifyOrder(
      orderId,
      facts,
      {
        placed: placed.get(orderId) ?? [],
        workflows: workflowsByOrder.get(orderId) ?? [],
        reservations: reservationsByOrder.get(orderId) ?? [],
        cancelledByEvent: cancelled.has(orderId),
        claim: claims.get(orderId),
      },
      out,
    );
  }
}
