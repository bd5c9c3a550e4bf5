import type pg from 'pg';
import {
  findReservation,
  insertReservation,
  markReleased,
  type ReservedLine,
} from './reservation-store';
import { readStock, returnStock, takeStock } from './stock-store';

/** Not enough units of a SKU for a reservation; nothing was taken. */
export class OutOfStockError extends Error {
  override readonly name = 'OutOfStockError';
  constructor(
    readonly sku: string,
    readonly requested: number,
    readonly available: number,
    readonly reservationKey: string,
  ) {
    super(`out of stock: ${sku} requested ${requested}, available ${available}`);
  }
}

export interface ReserveResult {
  reservationKey: string;
  items: ReservedLine[];
  /** True when this call found the reservation already made (a repeat). */
  repeated: boolean;
}

export interface ReleaseResult {
  /** False when there was nothing to release (no reservation under that key). */
  released: boolean;
  /** True when the reservation had been released before (by this or another key). */
  repeated: boolean;
}

/** Merges lines per SKU and sorts them, so concurrent reservations lock rows in one order. */
function normaliseLines(items: ReservedLine[]): ReservedLine[] {
  const bySku = new Map<string, number>();
  for (const l of items) bySku.set(l.sku, (bySku.get(l.sku) ?? 0) + l.quantity);
  return [...bySku.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([sku, quantity]) => ({ sku, quantity }));
}

/**
 * Reserves every line or none, in one transaction with the reservation row. A repeat of the
 * key returns the first result without touching stock.
 */
export async function reserveStock(
  pool: pg.Pool,
  input: { key: string; orderId: string; items: ReservedLine[] },
): Promise<ReserveResult> {
  const items = normaliseLines(input.items);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    if (!(await insertReservation(client, { key: input.key, orderId: input.orderId, items }))) {
      const first = await findReservation(client, input.key);
      await client.query('COMMIT');
      return { reservationKey: input.key, items: first?.items ?? items, repeated: true };
    }
    for (const line of items) {
      if (!(await takeStock(client, line.sku, line.quantity))) {
        const available = await readStock(client, line.sku);
        await client.query('ROLLBACK');
        throw new OutOfStockError(line.sku, line.quantity, available, input.key);
      }
    }
    await client.query('COMMIT');
    return { reservationKey: input.key, items, repeated: false };
  } catch (err) {
    if (!(err instanceof OutOfStockError)) await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Releases a reservation and returns its units, in one transaction. The row lock and the
 * status make it act once, whichever key (release, cancellation) asks first.
 */
export async function releaseStock(
  pool: pg.Pool,
  input: { key: string; reservationKey: string },
): Promise<ReleaseResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const reservation = await findReservation(client, input.reservationKey, { lock: true });
    if (!reservation || reservation.status === 'released') {
      await client.query('COMMIT');
      return { released: reservation !== undefined, repeated: reservation !== undefined };
    }
    for (const line of reservation.items) await returnStock(client, line.sku, line.quantity);
    await markReleased(client, input.reservationKey, input.key);
    await client.query('COMMIT');
    return { released: true, repeated: false };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
