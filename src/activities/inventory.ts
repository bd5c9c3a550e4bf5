import { ApplicationFailure } from '@temporalio/common';
import type pg from 'pg';
import type { ClaimVerdict } from '../db/order-claim-store';
import {
  claimCancelledOrder,
  OutOfStockError,
  releaseStock,
  reserveStock,
  type ReleaseResult,
  type ReserveResult,
} from '../inventory/inventory-service';
import { FAILURE_TYPES } from './failure-types';

export interface ReserveInventoryInput {
  /** Idempotency key derived by the workflow (`order:<orderId>:reserve`). */
  key: string;
  orderId: string;
  items: Array<{ sku: string; quantity: number }>;
  /** The run reserving: it claims the order in the same transaction, unless another run has. */
  workflowId: string;
  /** Payload fingerprint of the run's OrderPlaced (`input.event.fingerprint`). */
  fingerprint: string;
}

export interface ReleaseInventoryInput {
  /** Idempotency key derived by the workflow (`order:<orderId>:release`). */
  key: string;
  /** Key of the reservation to release (`order:<orderId>:reserve`). */
  reservationKey: string;
  /** Release only if this run owns the order (or nobody has claimed it). */
  ownerWorkflowId?: string;
}

export interface ClaimCancelledOrderInput {
  orderId: string;
  workflowId: string;
  fingerprint: string;
}

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
            type: FAILURE_TYPES.outOfStock,
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
    async claimCancelledOrder(input: ClaimCancelledOrderInput): Promise<ClaimVerdict> {
      return claimCancelledOrder(deps.pool, input);
    },
  };
}
