/**
 * The order claim as data, and the judge of a run against it. Pure: imported by workflow code
 * (types, `nothingToCompensate`) as well as by the store (src/db/order-claim-store.ts).
 *
 * The claim is the one memory of an order that never expires (docs/orders.md, "Which memory
 * holds what"). The ledger is reaped, Temporal's retention deletes runs and providers forget
 * idempotency keys; after that, a re-read of the source topic starts a new run under the SAME
 * workflow ID. So the claim names the owning RUN (its first execution run ID), not only its
 * workflow ID, and says whether the order has settled.
 */

/** How an order ended, as its claim records it. */
export const SETTLED_STATES = [
  'completed',
  'rejected',
  'declined',
  'cancelled',
  'refunded',
] as const;

/**
 * `completed`: every step ran. `rejected`: out of stock, nothing reserved or charged.
 * `declined`: the card was declined, the reservation released. `cancelled`: cancelled while it
 * ran (or before it reserved), compensated by its owner. `refunded`: cancelled after it had
 * closed, compensated by the cancellation workflow.
 */
export type SettledState = (typeof SETTLED_STATES)[number];

export interface OrderClaim {
  orderId: string;
  /** The owning orderFulfillment run's workflow ID. */
  workflowId: string;
  /**
   * The owning run's first execution run ID (`workflowInfo().firstExecutionRunId`: the same
   * across activity retries, workflow retries, continue-as-new and a Temporal reset). Absent
   * on claims written before migration 0006: see `isOwnersChain`.
   */
  runId?: string;
  /** Payload fingerprint of the owner's OrderPlaced data. */
  fingerprint: string;
  claimedAt: string;
  /** Set when the owner was cancelled before it reserved anything. */
  cancelledAt?: string;
  /** How the order ended; absent while its owner runs (or if it closed without settling). */
  settled?: SettledState;
  settledAt?: string;
  /** The last time the owner's own chain (a Temporal reset) asked again after it had settled. */
  reopenedAt?: string;
}

/** The run asking for an order. */
export interface ClaimCandidate {
  workflowId: string;
  /**
   * `workflowInfo().firstExecutionRunId` of the asking run. Absent only for callers from
   * before migration 0006 (an activity scheduled by an older worker): judged by workflow ID.
   */
  runId?: string;
  /**
   * When the asking run's chain started (`workflowInfo().startTime`, ISO; kept across reset).
   * Only used against claims without a run ID.
   */
  startedAt?: string;
  /** Fingerprint of the run's OrderPlaced data: tells a duplicate from an order conflict. */
  fingerprint: string;
}

/** What a run learns when it asks for an order: it owns it, or another run does. */
export type ClaimVerdict =
  | {
      kind: 'owner';
      claim: OrderClaim;
      /**
       * Set when the owner's own chain asked again after the order had settled: a Temporal
       * reset (an operator) runs its steps again. The claim is open again until it settles.
       */
      reopened?: { settled: SettledState; settledAt: string };
    }
  /** Another run owns the order with the same payload: this run is a re-send or a re-read. */
  | { kind: 'duplicate'; claim: OrderClaim }
  /** Another run owns the order with a different payload: never acted on. */
  | { kind: 'order-conflict'; claim: OrderClaim; fingerprint: string };

/**
 * How much later than the claim a run without a recorded run ID may have started and still be
 * the claim's owner: the Temporal server's and Postgres' clocks may disagree by this much. A
 * run started again under the same workflow ID after Temporal deleted the owner starts days
 * later (the ledger's and the namespace's retention), never within minutes.
 */
export const LEGACY_CLAIM_CLOCK_SKEW_MS = 10 * 60_000;

/**
 * Is the candidate the owner's chain? With both run IDs known: the same first execution run
 * ID (activity and workflow retries, continue-as-new and a reset keep it; a new run started
 * under the same workflow ID after Temporal forgot the owner has another). A claim written
 * before migration 0006 has no run ID: its owner is the run of its workflow ID whose chain
 * started before the claim was made (within LEGACY_CLAIM_CLOCK_SKEW_MS); a run of that ID
 * started later is a re-read, not the owner. A candidate without a run ID (an activity an
 * older worker scheduled) is judged by workflow ID, as before.
 */
export function isOwnersChain(claim: OrderClaim, candidate: ClaimCandidate): boolean {
  if (claim.runId !== undefined && candidate.runId !== undefined) {
    return claim.runId === candidate.runId;
  }
  if (claim.workflowId !== candidate.workflowId) return false;
  if (claim.runId !== undefined || candidate.startedAt === undefined) return true;
  return (
    Date.parse(candidate.startedAt) <= Date.parse(claim.claimedAt) + LEGACY_CLAIM_CLOCK_SKEW_MS
  );
}

/**
 * Judges a run against the order's claim. The owner's chain asking again (activity retry,
 * replay, worker crash, reset) is the owner whatever it sends; any other run, WHATEVER its
 * workflow ID, is a duplicate when the payload is the same and an order conflict when it is
 * not, and acts on nothing. Pure.
 */
export function judgeClaim(claim: OrderClaim, candidate: ClaimCandidate): ClaimVerdict {
  if (isOwnersChain(claim, candidate)) return { kind: 'owner', claim };
  if (claim.fingerprint === candidate.fingerprint) return { kind: 'duplicate', claim };
  return { kind: 'order-conflict', claim, fingerprint: candidate.fingerprint };
}

/**
 * True when a cancellation of an order settled so has nothing left to undo: only a completed
 * order still holds a charge and a reservation. A replayed OrderCancelled for a cancelled or
 * refunded order acts on nothing.
 */
export function nothingToCompensate(settled: SettledState | undefined): boolean {
  return settled !== undefined && settled !== 'completed';
}
