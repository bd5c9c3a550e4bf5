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
  };
}
