import type pg from 'pg';
import type { SettledState } from '../workflows/order-claim';
import { findOrderOwner } from '../order-claim-store';

export interface FindOrderWorkflowInput {
  orderId: string;
}

export interface FindOrderWorkflowResult {
  /** Workflow ID of the order's owning orderFulfillment run; undefined when none is known. */
  workflowId?: string;
  /** `claim` (the owner) or `ledger` (no claim yet: the first OrderPlaced run). */
  foundBy?: 'claim' | 'ledger';
  /** The owner's first execution run ID, when its claim records one. */
  runId?: string;
  /** How the order ended, when its claim says (a cancellation may find nothing left to do). */
  settled?: SettledState;
  settledAt?: string;
}

/**
 * The order's owner for the cancellation workflow. An OrderCancelled event carries only the
 * order ID; findOrderOwner (the one lookup `orders cancel` and reconcile use as well) maps it
 * to the run that owns the order's effects.
 */
export function createOrderLookupActivities(deps: { pool: pg.Pool }) {
  return {
    async findOrderWorkflow(input: FindOrderWorkflowInput): Promise<FindOrderWorkflowResult> {
      const owner = await findOrderOwner(deps.pool, input.orderId);
      if (!owner) return {};
      const claim = owner.claim;
      return {
        workflowId: owner.workflowId,
        foundBy: owner.foundBy,
        ...(claim?.runId !== undefined ? { runId: claim.runId } : {}),
        ...(claim?.settled !== undefined
          ? { settled: claim.settled, settledAt: claim.settledAt }
          : {}),
      };
    },
  };
}
