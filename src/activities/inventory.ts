import { ApplicationFailure } from '@temporalio/common';
import type pg from 'pg';
import {
  OutOfStockError,
  releaseStock,
  reserveStock,
  type ReleaseResult,
  type ReserveResult,
} from '../inventory/inventory-service';
import { FAILURE_TYPES } from './provider-http';

export interface ReserveInventoryInput {
  /** Idempotency key derived by the workflow (`<workflowId>:reserve`). */
  key: string;
  orderId: string;
  items: Array<{ sku: string; quantity: number }>;
}

export interface ReleaseInventoryInput {
  /** Idempotency key derived by the workflow (`<workflowId>:release`). */
  key: string;
  /** Key of the reservation to release (`<workflowId>:reserve`). */
  reservationKey: string;
}

/** Inventory activities on the service's own Postgres (one transaction per call). */
export function createInventoryActivities(deps: { pool: pg.Pool }) {
  return {
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
  };
}
