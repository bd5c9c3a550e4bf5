import type pg from 'pg';

export interface FindOrderWorkflowInput {
  orderId: string;
}

export interface FindOrderWorkflowResult {
  /** Workflow ID of the order's orderFulfillment run; undefined when none was started. */
  workflowId?: string;
}

/**
 * Lookups in the bridge's ledger (processed_events, on the pool's search_path). An
 * OrderCancelled event carries only the order ID, while the order's workflow ID was derived
 * from the OrderPlaced identity; the ledger maps one to the other.
 */
export function createOrderLookupActivities(deps: { pool: pg.Pool }) {
  return {
    async findOrderWorkflow(input: FindOrderWorkflowInput): Promise<FindOrderWorkflowResult> {
      // The first placement wins: the bridge DLQs stale versions, and the ledger keeps the
      // row of the run that reserved and charged.
      const { rows } = await deps.pool.query<{ workflow_id: string }>(
        `SELECT workflow_id FROM processed_events
          WHERE aggregate_id = $1 AND event_type = $2
          ORDER BY first_seen_at, identity LIMIT 1`,
        [input.orderId, 'OrderPlaced'],
      );
      return { workflowId: rows[0]?.workflow_id };
    },
  };
}
