/**
 * The plain Temporal system's activities: the reservation without the order claim (its key
 * alone makes a repeat of the same order take no stock twice), and the same provider calls
 * with the same keys as every system (../order-steps.ts).
 */
import type pg from 'pg';
import type { OrderPlacedData } from '../../../../src/domains/orders/order-events';
import { insertReservation } from '../../../../src/domains/orders/inventory/reservation-store';
import { takeStock } from '../../../../src/domains/orders/inventory/stock-store';
import { stepKey } from '../../../../src/domains/orders/workflows/order-definitions';
import { createProviderSteps } from '../order-steps';

/** Not enough stock: not retried (the sample's way: a non-retryable application failure). */
class OutOfStock extends Error {
  override readonly name = 'OutOfStock';
}

export function createPlainActivities(deps: { pool: pg.Pool; providersUrl: string }) {
  const providers = createProviderSteps(deps);
  return {
    /** Inserts the reservation under its key and takes the stock, in one transaction. */
    async reserve(order: OrderPlacedData): Promise<void> {
      const client = await deps.pool.connect();
      try {
        await client.query('BEGIN');
        const lines = order.items.map((l) => ({ sku: l.sku, quantity: l.quantity }));
        const key = stepKey(order.orderId, 'reserve');
        if (await insertReservation(client, { key, orderId: order.orderId, items: lines }))
          for (const line of lines)
            if (!(await takeStock(client, line.sku, line.quantity)))
              throw new OutOfStock(`out of stock: ${line.sku}`);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async charge(order: OrderPlacedData): Promise<void> {
      await providers.charge(order);
    },
    async email(order: OrderPlacedData): Promise<void> {
      await providers.email(order);
    },
  };
}

export type PlainActivities = ReturnType<typeof createPlainActivities>;
