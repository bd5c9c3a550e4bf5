import type pg from 'pg';
import { judgeClaim, type ClaimCandidate, type ClaimVerdict } from '../db/entity-claim';
import {
  claimEntityOnce,
  findClaim,
  type EntityRef,
  settleClaim as settleEntityClaim,
  type ClaimEntityInput,
  type SettleClaimInput,
  type SettleClaimResult,
} from '../db/entity-claim-store';

/**
 * The engine's claim step, for a domain whose first step does not claim inside a transaction
 * of its own (src/workflows/saga.ts runs both as local activities: a marker each, no activity
 * task round trip). Both are safe to run again: the claim judges the same run the owner again,
 * the settlement writes the same state again.
 */
export function createClaimActivities(deps: { pool: pg.Pool }) {
  return {
    /** Claims the entity for the run (or as cancelled), or names the run that owns it. */
    async claimEntity(input: ClaimEntityInput): Promise<ClaimVerdict> {
      return claimEntityOnce(deps.pool, input);
    },
    /**
     * The claim's verdict on the run without claiming (`none`: nobody claimed the entity): an
     * operator's resolve of a domain's claiming step is checked with it.
     */
    async findClaimVerdict(
      input: EntityRef & ClaimCandidate,
    ): Promise<ClaimVerdict | { kind: 'none' }> {
      const claim = await findClaim(deps.pool, input);
      return claim ? judgeClaim(claim, input) : { kind: 'none' };
    },
    /** The owner's last word on its entity: completed, cancelled, a business outcome. */
    async settleClaim(input: SettleClaimInput): Promise<SettleClaimResult> {
      return settleEntityClaim(deps.pool, input);
    },
    /**
     * Which run owns the entity and how it settled (empty: nobody claimed it): what a
     * cancellation workflow asks before it signals the owner or undoes a closed one.
     */
    async findClaimOwner(input: EntityRef): Promise<ClaimOwner> {
      const claim = await findClaim(deps.pool, input);
      return claim
        ? {
            workflowId: claim.workflowId,
            fingerprint: claim.fingerprint,
            ...(claim.runId ? { runId: claim.runId } : {}),
            ...(claim.settled ? { settled: claim.settled } : {}),
          }
        : {};
    },
  };
}

/** The owner of an entity as its claim says (every field absent: nobody claimed it). */
export interface ClaimOwner {
  workflowId?: string;
  runId?: string;
  fingerprint?: string;
  settled?: string;
}

/** The engine's claim activities, for a workflow of a team's own that calls them. */
export type ClaimActivities = ReturnType<typeof createClaimActivities>;
