import { ApplicationFailure } from '@temporalio/common';
import type pg from 'pg';
import type { ClaimCandidate, ClaimVerdict } from '../../../db/entity-claim';
import type { OrderClaim } from '../workflows/order-claim';
import {
  settleOrderClaim,
  type SettleOrderClaimInput,
  type SettleOrderClaimResult,
} from '../order-claim-store';
import {
  claimCancelledOrder,
  OutOfStockError,
  releaseStock,
  reserveStock,
  type ReleaseInput,
  type ReleaseResult,
  type ReserveResult,
} from '../inventory/inventory-service';
import { ORDER_FAILURES } from '../workflows/order-failures';

/**
 * The run reserving (workflow ID, first execution run ID, chain start, payload fingerprint of
 * its OrderPlaced): it claims the order in the same transaction, unless another run has.
 */
export interface ReserveInventoryInput extends ClaimCandidate {
  /** Idempotency key derived by the workflow (`order:<orderId>:reserve`). */
  key: string;
  orderId: string;
  items: Array<{ sku: string; quantity: number }>;
}

/**
 * `key`: derived by the workflow (`order:<orderId>:release`); `reservationKey`: the
 * reservation's (`order:<orderId>:reserve`); `ownerWorkflowId`: release only if this run owns
 * the order (or nobody has claimed it); `settle`: also record the settlement on its claim.
 */
export type ReleaseInventoryInput = ReleaseInput;

export type ClaimCancelledOrderInput = ClaimCandidate & { orderId: string };

/** The owner records how its order ended (src/domains/orders/order-claim-store.ts, settleOrderClaim). */
export type SettleOrderInput = SettleOrderClaimInput;

/** Inventory activities on the service's own Postgres (one transaction per call). */
export function createInventoryActivities(deps: { pool: pg.Pool }) {
  return {
    /**
     * Claims the order and reserves its lines in one transaction. Another run owning the
     * order is not an error: the result says `duplicate` or `order-conflict` and names it.
     */
    async reserveInventory(input: ReserveInventoryInput): Promise<ReserveResult> {
      try {
        return await reserveStock(deps.pool, input);
      } catch (err) {
        if (err instanceof OutOfStockError) {
          // A business outcome, not a fault: retrying would not add stock.
          throw ApplicationFailure.create({
            type: ORDER_FAILURES.outOfStock,
            message: err.message,
            nonRetryable: true,
            details: [{ sku: err.sku, requested: err.requested, available: err.available }],
            cause: err,
          });
        }
        throw err;
      }
    },

    async releaseInventory(input: ReleaseInventoryInput): Promise<ReleaseResult> {
      return releaseStock(deps.pool, input);
    },

    /** A run cancelled before reserving: claims the order as cancelled, or names its owner. */
    async claimCancelledOrder(input: ClaimCancelledOrderInput): Promise<ClaimVerdict<OrderClaim>> {
      return claimCancelledOrder(deps.pool, input);
    },

    /**
     * The owner's last word on its order: completed, rejected, declined or cancelled. One
     * statement; the workflow runs it as a local activity, so it adds no server round trip.
     */
    async settleOrder(input: SettleOrderInput): Promise<SettleOrderClaimResult> {
      return settleOrderClaim(deps.pool, input);
    },
  };
}
