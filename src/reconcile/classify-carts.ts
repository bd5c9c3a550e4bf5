import type { EntityClaim } from '../db/entity-claim';
import { carts } from '../domains/carts';
import { CART_EVENT_TYPES } from '../domains/carts/cart-events';
import {
  cartOutcomeOfSettlement,
  judgeCart,
  NOT_OWNER_ENDINGS,
  UNWOUND_CART_OUTCOMES,
  type CartBreach,
  type CartInvariant,
} from '../domains/carts/invariants';
import type { Discrepancy, ReconcileFacts, TopicEvent, WorkflowFacts } from './facts';
import { groupBy } from './classify-orders';

// The per-cart rules of reconcile: the cart domain's invariants
// (src/domains/carts/invariants.ts) judged on what the providers' ledgers (holds, charges,
// refunds, shipments, mails), the cart events topic, Temporal and the cart claims record.
// Grouped by the cart ID the rows record (the providers' `orderId`, the EntityId search
// attribute, data.cartId, the record key), never by parsing a key.

/** The cart domain's workflow types and event types, from its routes (one owner). */
const CART_WORKFLOW_TYPES: ReadonlySet<string> = new Set(carts.routes.map((r) => r.workflowType));
const CART_EVENTS: ReadonlySet<string> = new Set(carts.routes.map((r) => r.eventType));
const CART_WORKFLOW = carts.routes.find(
  (r) => r.eventType === CART_EVENT_TYPES.cartCheckedOut,
)!.workflowType;

/** The reconcile class of each cart invariant. */
const CART_CLASS_OF: Record<CartInvariant, Discrepancy['class']> = {
  'one-hold-per-line': 'multiple-effects-per-order',
  'one-charge': 'multiple-effects-per-order',
  'one-shipment': 'multiple-effects-per-order',
  'one-mail': 'multiple-effects-per-order',
  'one-event': 'multiple-effects-per-order',
  'duplicate-acted': 'multiple-effects-per-order',
  'one-refund': 'charge-amount-mismatch',
  'net-charge': 'charge-amount-mismatch',
  'effect-missing': 'effect-missing',
  'release-missing': 'stock-not-restored',
  'undo-missing': 'refund-missing',
};

/** The carts any source knows, by ID: their events', workflows' and claims' entity. */
export function cartIdsOf(facts: ReconcileFacts): Set<string> {
  return new Set([
    ...facts.events.filter((e) => CART_EVENTS.has(e.eventType)).flatMap((e) => e.orderId ?? []),
    ...facts.workflows
      .filter((w) => CART_WORKFLOW_TYPES.has(w.type))
      .flatMap((w) => w.orderId ?? []),
    ...(facts.cartClaims ?? []).map((c) => c.entityId),
  ]);
}

/**
 * Has the cart's claim settled the way this event asked? Then its workflow may be gone
 * (Temporal's retention). A CartCheckedOut is answered by any settlement; a CartCancelled by
 * any but `completed` (a fulfilled cart with a lost cancellation still holds its effects).
 */
export function cartAnsweredByClaim(
  facts: ReconcileFacts,
  e: { eventType: string; subject: string },
): boolean {
  if (!CART_EVENTS.has(e.eventType)) return false;
  const claim = facts.cartClaims?.find((c) => c.entityId === e.subject);
  if (!claim?.settled) return false;
  return e.eventType === CART_EVENT_TYPES.cartCheckedOut || claim.settled !== 'completed';
}

/** One cart's evidence and breaches: undefined while a run of it is still in flight. */
function judgeCartFacts(
  cartId: string,
  facts: ReconcileFacts,
  context: {
    checkedOut: TopicEvent[];
    cancelledByEvent: boolean;
    workflows: WorkflowFacts[];
    claim?: EntityClaim;
  },
): CartBreach[] | undefined {
  if (context.workflows.some((w) => w.status === 'RUNNING')) return undefined;
  const runs = context.workflows.filter((w) => w.type === CART_WORKFLOW);
  const owner = runs.find((w) => w.step !== undefined && !NOT_OWNER_ENDINGS.has(w.step));
  const { claim } = context;
  // The claim outlives the owner's run; when present it is the cart's outcome.
  const outcome = claim?.settled ? cartOutcomeOfSettlement(claim.settled) : owner?.step;
  const known = outcome === 'completed' || UNWOUND_CART_OUTCOMES.has(outcome ?? '');
  const effects = facts.effects.get(cartId) ?? { charges: [], refunds: [], emails: [] };
  const event =
    context.checkedOut.find((e) => e.workflowId === owner?.workflowId) ?? context.checkedOut[0];
  return judgeCart({
    outcome: known ? outcome : undefined,
    cancelled: context.cancelledByEvent || outcome === 'cancelled',
    ...(event?.lineSkus ? { lines: event.lineSkus.map((sku) => ({ sku })) } : {}),
    ...(event?.totalMinor !== undefined ? { totalMinor: event.totalMinor } : {}),
    holds: (effects.holds ?? []).map((h) => ({ id: h.id, sku: h.sku, released: !!h.releasedAt })),
    charges: effects.charges,
    refunds: effects.refunds,
    shipments: (effects.shipments ?? []).map((s) => ({ id: s.id, cancelled: !!s.cancelledAt })),
    mails: effects.emails.map((m) => m.subject ?? ''),
    ...(facts.cartEvents ? { published: facts.cartEvents.get(cartId) ?? [] } : {}),
    runs: runs.map((w) => ({ workflowId: w.workflowId, ...(w.step ? { step: w.step } : {}) })),
  });
}

function describeClaim(claim: EntityClaim | undefined): string {
  if (!claim) return '';
  return ` (owner ${claim.workflowId}, ${claim.settled ? `settled ${claim.settled}` : 'not settled'})`;
}

/**
 * The per-cart classes (each detail starting `cart:`, the invariant named): every cart that any source
 * knows, judged by its claim's settlement, else by its owning run's ending.
 */
export function classifyCarts(
  facts: ReconcileFacts,
  cartIds: ReadonlySet<string>,
  out: Discrepancy[],
): void {
  const deadLettered = new Set(facts.dlq.flatMap((d) => (d.source ? [d.source] : [])));
  const live = facts.events.filter((e) => e.orderId && !deadLettered.has(e.coordinates));
  const checkedOut = groupBy(
    live.filter((e) => e.eventType === CART_EVENT_TYPES.cartCheckedOut),
    (e) => e.orderId,
  );
  const cancelled = new Set(
    live.filter((e) => e.eventType === CART_EVENT_TYPES.cartCancelled).map((e) => e.orderId!),
  );
  const workflows = groupBy(
    facts.workflows.filter((w) => CART_WORKFLOW_TYPES.has(w.type)),
    (w) => w.orderId,
  );
  const claims = new Map((facts.cartClaims ?? []).map((c) => [c.entityId, c]));
  for (const cartId of cartIds) {
    const claim = claims.get(cartId);
    const breaches = judgeCartFacts(cartId, facts, {
      checkedOut: checkedOut.get(cartId) ?? [],
      cancelledByEvent: cancelled.has(cartId),
      workflows: workflows.get(cartId) ?? [],
      ...(claim ? { claim } : {}),
    });
    for (const b of breaches ?? [])
      out.push({
        class: CART_CLASS_OF[b.invariant],
        subject: cartId,
        detail: `cart: ${b.detail}${describeClaim(claim)}`,
        invariant: `${carts.name}/${b.invariant}`,
      });
  }
}
