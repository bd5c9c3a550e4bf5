import type pg from 'pg';
import { findOrderOwner } from '../db/order-claim-store';

export interface FindOrderWorkflowInput {
  orderId: string;
}

export interface FindOrderWorkflowResult {
  /** Workflow ID of the order's owning orderFulfillment run; undefined when none is known. */
  workflowId?: string;
  /** `claim` (the owner) or `ledger` (no claim yet: the first OrderPlaced run). */
  foundBy?: 'claim' | 'ledger';
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
      return owner ? { workflowId: owner.workflowId, foundBy: owner.foundBy } : {};
    },
  };
}
