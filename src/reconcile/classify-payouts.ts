import type { EntityClaim } from '../db/entity-claim';
import { payouts } from '../domains/payouts';
import {
  judgePayout,
  NOT_OWNER_ENDINGS,
  payoutOutcomeOfSettlement,
  UNWOUND_PAYOUT_OUTCOMES,
  type PayoutInvariant,
} from '../domains/payouts/invariants';
import { PAYOUT_EVENT_TYPES } from '../domains/payouts/payout-events';
import type { Discrepancy, ReconcileFacts, TopicEvent, WorkflowFacts } from './facts';
import { groupBy } from './classify-orders';

// The per-payout rules of reconcile: the payout domain's invariants
// (src/domains/payouts/invariants.ts) judged on what the provider's ledger, Temporal and the
// payout claims record. Grouped by the payout ID the rows record (the provider's `orderId`,
// the EntityId search attribute, data.payoutId), never by parsing a key.

/** The payout domain's workflow types and event types, from its routes (one owner). */
const PAYOUT_WORKFLOW_TYPES: ReadonlySet<string> = new Set(
  payouts.routes.map((r) => r.workflowType),
);
const PAYOUT_EVENTS: ReadonlySet<string> = new Set(payouts.routes.map((r) => r.eventType));
const PAYOUT_WORKFLOW = payouts.routes.find(
  (r) => r.eventType === PAYOUT_EVENT_TYPES.payoutRequested,
)!.workflowType;

/** The reconcile class of each payout invariant. */
const CLASS_OF: Record<PayoutInvariant, Discrepancy['class']> = {
  'one-transfer': 'multiple-effects-per-order',
  'one-reversal': 'multiple-effects-per-order',
  'one-notice': 'multiple-effects-per-order',
  'duplicate-acted': 'multiple-effects-per-order',
  'over-reversed': 'charge-amount-mismatch',
  'net-transfer': 'charge-amount-mismatch',
  'reversal-missing': 'refund-missing',
};

/**
 * The payouts any source knows, by ID: its events' entity (PayoutRequested/PayoutCancelled),
 * its workflows' (payout, payoutCancellation), its claims'. Whatever else the facts hold under
 * these IDs (the provider's ledger) is the payout's, not an order's.
 */
export function payoutIdsOf(facts: ReconcileFacts): Set<string> {
  return new Set([
    ...facts.events.filter((e) => PAYOUT_EVENTS.has(e.eventType)).flatMap((e) => e.orderId ?? []),
    ...facts.workflows
      .filter((w) => PAYOUT_WORKFLOW_TYPES.has(w.type))
      .flatMap((w) => w.orderId ?? []),
    ...(facts.payoutClaims ?? []).map((c) => c.entityId),
  ]);
}

/**
 * Has the payout's claim settled the way this event asked? Then its workflow may be gone
 * (Temporal's retention). A PayoutRequested is answered by any settlement; a PayoutCancelled
 * by any but `completed` (a completed payout with a lost cancellation still holds its transfer).
 */
export function payoutAnsweredByClaim(
  facts: ReconcileFacts,
  e: { eventType: string; subject: string },
): boolean {
  if (!PAYOUT_EVENTS.has(e.eventType)) return false;
  const claim = facts.payoutClaims?.find((c) => c.entityId === e.subject);
  if (!claim?.settled) return false;
  return e.eventType === PAYOUT_EVENT_TYPES.payoutRequested || claim.settled !== 'completed';
}

function describeClaim(claim: EntityClaim | undefined): string {
  if (!claim) return '';
  return ` (owner ${claim.workflowId}, ${claim.settled ? `settled ${claim.settled}` : 'not settled'})`;
}

function classifyPayout(
  payoutId: string,
  facts: ReconcileFacts,
  context: {
    requested: TopicEvent[];
    cancelledByEvent: boolean;
    workflows: WorkflowFacts[];
    claim?: EntityClaim;
  },
  out: Discrepancy[],
): void {
  // A payout still in flight (its run or a cancellation) is not final: stuck-order judges it.
  if (context.workflows.some((w) => w.status === 'RUNNING')) return;
  const runs = context.workflows.filter((w) => w.type === PAYOUT_WORKFLOW);
  const owner = runs.find((w) => w.step !== undefined && !NOT_OWNER_ENDINGS.has(w.step));
  const { claim } = context;
  // The claim outlives the owner's run; when present it is the payout's outcome.
  const outcome = claim?.settled ? payoutOutcomeOfSettlement(claim.settled) : owner?.step;
  const known = outcome === 'completed' || UNWOUND_PAYOUT_OUTCOMES.has(outcome ?? '');
  const effects = facts.effects.get(payoutId) ?? { charges: [], refunds: [], emails: [] };
  const amount = (
    context.requested.find((e) => e.workflowId === owner?.workflowId) ?? context.requested[0]
  )?.amountMinor;
  const breaches = judgePayout({
    outcome: known ? outcome : undefined,
    cancelled: context.cancelledByEvent || outcome === 'cancelled',
    ...(amount !== undefined ? { amountMinor: amount } : {}),
    transfers: effects.charges,
    reversals: effects.refunds,
    notices: effects.emails.length,
    runs: runs.map((w) => ({ workflowId: w.workflowId, ...(w.step ? { step: w.step } : {}) })),
  });
  const note = describeClaim(claim);
  const byClass = groupBy(breaches, (b) => CLASS_OF[b.invariant]);
  for (const [cls, list] of byClass)
    out.push({
      class: cls as Discrepancy['class'],
      subject: payoutId,
      detail: `payout: ${list.map((b) => b.detail).join('; ')}${note}`,
    });
}

/**
 * The per-payout classes (multiple-effects-per-order, charge-amount-mismatch, refund-missing,
 * each detail starting `payout:`): every payout that any source knows, judged by its claim's
 * settlement, else by its owning run's ending.
 */
export function classifyPayouts(
  facts: ReconcileFacts,
  payoutIds: ReadonlySet<string>,
  out: Discrepancy[],
): void {
  const deadLettered = new Set(facts.dlq.flatMap((d) => (d.source ? [d.source] : [])));
  const live = facts.events.filter((e) => e.orderId && !deadLettered.has(e.coordinates));
  const requested = groupBy(
    live.filter((e) => e.eventType === PAYOUT_EVENT_TYPES.payoutRequested),
    (e) => e.orderId,
  );
  const cancelled = new Set(
    live.filter((e) => e.eventType === PAYOUT_EVENT_TYPES.payoutCancelled).map((e) => e.orderId!),
  );
  const workflows = groupBy(
    facts.workflows.filter((w) => PAYOUT_WORKFLOW_TYPES.has(w.type)),
    (w) => w.orderId,
  );
  const claims = new Map((facts.payoutClaims ?? []).map((c) => [c.entityId, c]));
  for (const payoutId of payoutIds)
    classifyPayout(
      payoutId,
      facts,
      {
        requested: requested.get(payoutId) ?? [],
        cancelledByEvent: cancelled.has(payoutId),
        workflows: workflows.get(payoutId) ?? [],
        claim: claims.get(payoutId),
      },
      out,
    );
}
