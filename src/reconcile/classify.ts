import { EVENT_TYPES } from '../domains/orders/order-events';
import { POISON_REASONS } from '../events/poison';
import { cartAnsweredByClaim, cartIdsOf, classifyCarts } from './classify-carts';
import { classifyOrders } from './classify-orders';
import { classifyPayouts, payoutAnsweredByClaim, payoutIdsOf } from './classify-payouts';
import { DISCREPANCY_CLASSES, type Discrepancy, type ReconcileFacts } from './facts';

export { computeNetCharge } from './classify-orders';

/** Options of classifyDiscrepancies. */
export interface ClassifyOptions {
  /** The reference time for stuck orders. */
  now: Date;
  /** A workflow running longer than this is a stuck order. Default: 10 minutes. */
  stuckAfterMs?: number;
}

export const DEFAULT_STUCK_AFTER_MS = 10 * 60_000;

const KNOWN_REASONS = new Set<string>(POISON_REASONS);

/** What the identity expects: one workflow, derived from it. */
interface ExpectedStart {
  identity: string;
  workflowId: string;
  eventType: string;
  subject: string;
  fromTopic: boolean;
  inLedger: boolean;
}

/**
 * Identities that must have a workflow: every identity with at least one occurrence on the
 * topic that the bridge did not dead-letter (a conflicting or stale occurrence alone starts
 * nothing), and every identity the ledger recorded as started.
 */
function collectExpectedStarts(facts: ReconcileFacts): Map<string, ExpectedStart> {
  const deadLettered = new Set(facts.dlq.flatMap((d) => (d.source ? [d.source] : [])));
  const expected = new Map<string, ExpectedStart>();
  for (const e of facts.events) {
    if (deadLettered.has(e.coordinates) || expected.has(e.identity)) continue;
    expected.set(e.identity, {
      identity: e.identity,
      workflowId: e.workflowId,
      eventType: e.eventType,
      subject: e.orderId ?? e.aggregateId,
      fromTopic: true,
      inLedger: false,
    });
  }
  for (const l of facts.ledger) {
    const known = expected.get(l.identity);
    if (known) known.inLedger = true;
    else
      expected.set(l.identity, {
        identity: l.identity,
        workflowId: l.workflowId,
        eventType: l.eventType,
        subject: l.aggregateId,
        fromTopic: false,
        inLedger: true,
      });
  }
  return expected;
}

/**
 * Has the order's claim settled the way this event asked? Then its workflow may be gone:
 * Temporal's retention deletes closed runs, the claim keeps how the order ended. An
 * OrderPlaced is answered by any settlement; an OrderCancelled only by cancelled or refunded
 * (a completed order with a lost cancellation is still refund-missing, and reported here).
 */
function answeredByClaim(facts: ReconcileFacts, e: ExpectedStart): boolean {
  if (payoutAnsweredByClaim(facts, e) || cartAnsweredByClaim(facts, e)) return true;
  const claim = facts.claims?.find((c) => c.orderId === e.subject);
  if (!claim?.settled) return false;
  if (e.eventType === EVENT_TYPES.orderPlaced) return true;
  if (e.eventType === EVENT_TYPES.orderCancelled)
    return claim.settled === 'cancelled' || claim.settled === 'refunded';
  return false;
}

function classifyIdentities(facts: ReconcileFacts, out: Discrepancy[]): void {
  const expected = collectExpectedStarts(facts);
  const workflowIds = new Set(facts.workflows.map((w) => w.workflowId));
  for (const e of expected.values()) {
    if (workflowIds.has(e.workflowId) || answeredByClaim(facts, e)) continue;
    const where = e.fromTopic
      ? e.inLedger
        ? 'on the topic and in the ledger'
        : 'on the topic, not in the ledger'
      : 'in the ledger only';
    out.push({
      class: 'event-without-workflow',
      subject: e.subject,
      detail: `${e.eventType} ${e.identity} (${where}) has no workflow ${e.workflowId}`,
    });
  }
  // Any occurrence counts here, dead-lettered or not: the workflow has an event behind it.
  const knownIdentities = new Set([
    ...facts.events.map((e) => e.identity),
    ...facts.ledger.map((l) => l.identity),
  ]);
  const knownWorkflowIds = new Set([
    ...facts.events.map((e) => e.workflowId),
    ...facts.ledger.map((l) => l.workflowId),
  ]);
  for (const w of facts.workflows) {
    if (facts.eventsKnownSince && w.startTime < facts.eventsKnownSince) continue;
    const matched = w.identity
      ? knownIdentities.has(w.identity)
      : knownWorkflowIds.has(w.workflowId);
    if (matched) continue;
    out.push({
      class: 'workflow-without-event',
      subject: w.orderId ?? w.workflowId,
      detail: `${w.type} ${w.workflowId} (${w.status}${w.identity ? `, identity ${w.identity}` : ''}) matches no event on the topic or in the ledger`,
    });
  }
}

function formatAge(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  return minutes >= 120 ? `${Math.floor(minutes / 60)} h` : `${minutes} min`;
}

function classifyStuck(facts: ReconcileFacts, options: ClassifyOptions, out: Discrepancy[]): void {
  const limit = options.stuckAfterMs ?? DEFAULT_STUCK_AFTER_MS;
  for (const w of facts.workflows) {
    const age = options.now.getTime() - w.startTime.getTime();
    if (w.status !== 'RUNNING' || age <= limit) continue;
    out.push({
      class: 'stuck-order',
      subject: w.orderId ?? w.workflowId,
      detail: `${w.type} ${w.workflowId} running for ${formatAge(age)}${w.step ? ` at ${w.step}` : ''}`,
    });
  }
}

function classifyDlq(facts: ReconcileFacts, out: Discrepancy[]): void {
  for (const d of facts.dlq) {
    const reason = d.reason?.trim();
    if (reason && KNOWN_REASONS.has(reason)) continue;
    out.push({
      class: 'dlq-without-reason',
      subject: d.coordinates,
      detail: reason
        ? `key ${d.key ?? '(null)'}: unknown dlq-reason ${JSON.stringify(reason)}`
        : `key ${d.key ?? '(null)'}: no dlq-reason header`,
    });
  }
  const deadLettered = new Set(facts.dlq.flatMap((d) => (d.source ? [d.source] : [])));
  for (const p of facts.poison) {
    if (deadLettered.has(p.coordinates)) continue;
    out.push({
      class: 'poison-not-dead-lettered',
      subject: p.coordinates,
      detail: `key ${p.key ?? '(null)'}: ${p.reason}, not in the DLQ`,
    });
  }
}

/** The facts without other domains' entities (payouts, carts): what the order rules judge. */
function withoutEntities(facts: ReconcileFacts, ids: ReadonlySet<string>): ReconcileFacts {
  const other = (id: string | undefined) => id === undefined || !ids.has(id);
  return {
    ...facts,
    events: facts.events.filter((e) => other(e.orderId)),
    workflows: facts.workflows.filter((w) => other(w.orderId)),
    effects: new Map([...facts.effects].filter(([id]) => other(id))),
  };
}

/**
 * Every discrepancy between the events, the ledger, Temporal, the providers, inventory and the
 * DLQ (docs/architecture.md, "Invariants"), sorted by class then subject. Empty means clean. Pure.
 */
export function classifyDiscrepancies(
  facts: ReconcileFacts,
  options: ClassifyOptions,
): Discrepancy[] {
  const out: Discrepancy[] = [];
  classifyIdentities(facts, out);
  const payoutIds = payoutIdsOf(facts);
  const cartIds = cartIdsOf(facts);
  classifyOrders(withoutEntities(facts, new Set([...payoutIds, ...cartIds])), out);
  classifyPayouts(facts, payoutIds, out);
  classifyCarts(facts, cartIds, out);
  classifyStuck(facts, options, out);
  classifyDlq(facts, out);
  const rank = (d: Discrepancy) => DISCREPANCY_CLASSES.indexOf(d.class);
  return out.sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0) ||
      (a.detail < b.detail ? -1 : a.detail > b.detail ? 1 : 0),
  );
}

/** Discrepancies per class, every class present (0 when none). */
export function countByClass(
  discrepancies: readonly Discrepancy[],
): Record<Discrepancy['class'], number> {
  const counts = Object.fromEntries(DISCREPANCY_CLASSES.map((c) => [c, 0])) as Record<
    Discrepancy['class'],
    number
  >;
  for (const d of discrepancies) counts[d.class]++;
  return counts;
}
