import type { LedgerEntry as StoredLedgerEntry } from '../db/ledger-store';
import type { EntityClaim } from '../db/entity-claim';
import type { OrderClaim } from '../domains/orders/workflows/order-claim';

/**
 * What reconcile reads from each system, reduced to the fields the classification needs. Plain
 * data: gathering (I/O) fills it, classifyDiscrepancies (pure) judges it, so the rules are
 * unit-testable without a stack.
 */

/** The discrepancy classes, in the order reports list them. */
export const DISCREPANCY_CLASSES = [
  'event-without-workflow',
  'workflow-without-event',
  'multiple-effects-per-order',
  'order-conflict',
  'charge-amount-mismatch',
  'refund-missing',
  'stock-not-restored',
  'effect-missing',
  'stuck-order',
  'dlq-without-reason',
  'poison-not-dead-lettered',
] as const;

export type DiscrepancyClass = (typeof DISCREPANCY_CLASSES)[number];

export interface Discrepancy {
  class: DiscrepancyClass;
  /** What it is about: an order ID, a workflow ID or Kafka coordinates (`topic/partition/offset`). */
  subject: string;
  /** One line an operator can act on. */
  detail: string;
  /**
   * The domain invariant it breaks, `<domain>/<invariant>` (`carts/release-missing`), when a
   * domain's own invariants judged it: a breakdown of the class, for reports.
   */
  invariant?: string;
}

/** One valid occurrence of an event on a source topic (a redelivery is another occurrence). */
export interface TopicEvent {
  identity: string;
  workflowId: string;
  workflowType: string;
  eventType: string;
  aggregateId: string;
  /** `data.orderId` when the event carries one. */
  orderId?: string;
  /** `data.totalMinor` of an OrderPlaced. */
  totalMinor?: number;
  /** `data.amountMinor` of a PayoutRequested. */
  amountMinor?: number;
  /** The SKUs of `data.lines` of a CartCheckedOut. */
  lineSkus?: string[];
  /** The bridge's fingerprint of the validated data (what a second run of an order compares). */
  fingerprint?: string;
  /** `topic/partition/offset`. */
  coordinates: string;
}

/** A message on a source topic that translateMessage rejects. */
export interface TopicPoison {
  coordinates: string;
  reason: string;
  key: string | null;
}

/** A row of the bridge's ledger (processed_events); its shape is the ledger store's. */
export type LedgerEntry = StoredLedgerEntry;

/** A workflow execution from Temporal visibility (memo identity from describe when missing). */
export interface WorkflowFacts {
  workflowId: string;
  runId: string;
  type: string;
  /** Temporal's status name: RUNNING, COMPLETED, FAILED, TERMINATED, … */
  status: string;
  orderId?: string;
  /** OrderStep search attribute (the outcome once closed, e.g. `completed`, `duplicate`). */
  step?: string;
  /** Memo `identity` set by the bridge at start. */
  identity?: string;
  startTime: Date;
}

/**
 * The providers' ledger of one order (GET /admin/ledger?orderId=…), reduced; a payout's
 * transfers, reversals and notices are its charges, refunds and emails; a cart has holds and
 * shipments too (absent from a ledger that keeps none).
 */
export interface OrderEffects {
  charges: Array<{ id: string; amountMinor: number }>;
  refunds: Array<{ chargeId: string; amountMinor: number }>;
  emails: Array<{ subject?: string }>;
  holds?: Array<{ id: string; sku: string; releasedAt: string | null }>;
  shipments?: Array<{ id: string; cancelledAt: string | null }>;
}

/**
 * An inventory reservation. Grouped by the order ID the row records, never by parsing its
 * key: whatever the key format, an order owns at most one.
 */
export interface ReservationFacts {
  key: string;
  orderId: string;
  status: 'reserved' | 'released';
}

/** A message on a DLQ topic. */
export interface DlqEntry {
  coordinates: string;
  key: string | null;
  /** `dlq-reason` header; undefined when absent. */
  reason?: string;
  /** `dlq-source-topic/partition/offset` headers; undefined when incomplete. */
  source?: string;
}

export interface ReconcileFacts {
  events: TopicEvent[];
  poison: TopicPoison[];
  ledger: LedgerEntry[];
  workflows: WorkflowFacts[];
  /** By order ID; an order without an entry had no effects. */
  effects: Map<string, OrderEffects>;
  reservations: ReservationFacts[];
  dlq: DlqEntry[];
  /**
   * Order claims (src/db/order-claim-store.ts): each order's owning run and how the order
   * settled. The one memory that never expires: when Temporal's retention has deleted the
   * owner's run, the claim still says how the order ended. Default: none.
   */
  claims?: OrderClaim[];
  /** Payout claims (domain `payouts`): each payout's owner and how it settled. Default: none. */
  payoutClaims?: EntityClaim[];
  /** Cart claims (domain `carts`): each cart's owner and how it settled. Default: none. */
  cartClaims?: EntityClaim[];
  /**
   * The distinct event IDs of the CartFulfilled events on the cart events topic, by cart.
   * Undefined: not read, so what was published is not judged.
   */
  cartEvents?: Map<string, string[]>;
  /**
   * Set when retention trimmed a source topic: the oldest timestamp still on it. A workflow
   * started before it may have had its event deleted, so it is not judged
   * workflow-without-event. Undefined: the topics are complete, every workflow is judged.
   */
  eventsKnownSince?: Date;
}

/** `topic/partition/offset`: how topic events, poison and DLQ sources are matched. */
export function formatCoordinates(topic: string, partition: number, offset: string): string {
  return `${topic}/${partition}/${offset}`;
}
