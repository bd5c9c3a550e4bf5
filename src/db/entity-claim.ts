/**
 * The business claim as data, and the judge of a run against it. Pure: imported by workflow
 * code (types, `nothingToCompensate`) as well as by the store (src/db/entity-claim-store.ts).
 *
 * A claim says which run acts on one business entity (an order, a payout) of one domain. It
 * is the one memory of that entity that never expires (docs/orders.md, "Which memory holds
 * what"). The ledger is reaped, Temporal's retention deletes runs and providers forget
 * idempotency keys; after that, a re-read of the source topic starts a new run under the SAME
 * workflow ID. So the claim names the owning RUN (its first execution run ID), not only its
 * workflow ID, and says whether the entity has settled.
 */

/** The settlement of a run that went all the way: its entity still holds every effect. */
export const COMPLETED = 'completed';

/** What the judge reads of a claim: who owns the entity, with which payload, since when. */
export interface ClaimRecord {
  /** The owning run's workflow ID. */
  workflowId: string;
  /**
   * The owning run's first execution run ID (`workflowInfo().firstExecutionRunId`: the same
   * across activity retries, workflow retries, continue-as-new and a Temporal reset). Absent
   * on order claims written before migration 0006: see `isOwnersChain`.
   */
  runId?: string;
  /** Payload fingerprint of the owner's event data. */
  fingerprint: string;
  claimedAt: string;
  /** How the entity ended (a domain's word: `completed`, `cancelled`, `rejected`…). */
  settled?: string;
  settledAt?: string;
}

/** One row of `entity_claims`: a claim of one entity of one domain. */
export interface EntityClaim extends ClaimRecord {
  /** The domain's name (`orders`, `payouts`). */
  domain: string;
  /** The entity's ID within the domain (an order ID). */
  entityId: string;
  /** Set when the owner was cancelled before its claiming step ran. */
  cancelledAt?: string;
  /** The last time the owner's own chain (a Temporal reset) asked again after it had settled. */
  reopenedAt?: string;
}

/** The run asking for an entity. */
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
  /** Fingerprint of the run's event data: tells a duplicate from a conflict. */
  fingerprint: string;
}

/** What a run learns when it asks for an entity: it owns it, or another run does. */
export type ClaimVerdict<C extends ClaimRecord = EntityClaim> =
  | {
      kind: 'owner';
      claim: C;
      /**
       * Set when the owner's own chain asked again after the entity had settled: a Temporal
       * reset (an operator) runs its steps again. The claim is open again until it settles.
       */
      reopened?: { settled: string; settledAt: string };
    }
  /** Another run owns the entity with the same payload: this run is a re-send or a re-read. */
  | { kind: 'duplicate'; claim: C }
  /** Another run owns the entity with a different payload: never acted on. */
  | { kind: 'conflict'; claim: C; fingerprint: string };

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
export function isOwnersChain(claim: ClaimRecord, candidate: ClaimCandidate): boolean {
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
 * Judges a run against the entity's claim. The owner's chain asking again (activity retry,
 * replay, worker crash, reset) is the owner whatever it sends; any other run, WHATEVER its
 * workflow ID, is a duplicate when the payload is the same and a conflict when it is not, and
 * acts on nothing. Pure.
 */
export function judgeClaim<C extends ClaimRecord>(
  claim: C,
  candidate: ClaimCandidate,
): ClaimVerdict<C> {
  if (isOwnersChain(claim, candidate)) return { kind: 'owner', claim };
  if (claim.fingerprint === candidate.fingerprint) return { kind: 'duplicate', claim };
  return { kind: 'conflict', claim, fingerprint: candidate.fingerprint };
}

/**
 * True when a cancellation of an entity settled so has nothing left to undo: only a completed
 * entity still holds its effects (a rejected, declined, cancelled or refunded one holds none).
 * A replayed cancellation of a cancelled entity acts on nothing.
 */
export function nothingToCompensate(settled: string | undefined): boolean {
  return settled !== undefined && settled !== COMPLETED;
}
