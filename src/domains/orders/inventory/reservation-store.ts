import type pg from 'pg';

export interface ReservedLine {
  sku: string;
  quantity: number;
}

export interface Reservation {
  key: string;
  orderId: string;
  items: ReservedLine[];
  status: 'reserved' | 'released';
  releaseKey: string | null;
}

interface ReservationRow {
  key: string;
  order_id: string;
  items: ReservedLine[];
  status: 'reserved' | 'released';
  release_key: string | null;
}

function toReservation(r: ReservationRow): Reservation {
  return {
    key: r.key,
    orderId: r.order_id,
    items: r.items,
    status: r.status,
    releaseKey: r.release_key,
  };
}

/**
 * Inserts a reservation in the caller's transaction. Returns false when the key exists: the
 * primary key is what detects a repeat (a concurrent repeat waits here for the first).
 */
export async function insertReservation(
  client: pg.PoolClient,
  input: { key: string; orderId: string; items: ReservedLine[] },
): Promise<boolean> {
  const { rowCount } = await client.query(
    `INSERT INTO inventory_reservations (key, order_id, items, status)
     VALUES ($1, $2, $3, 'reserved') ON CONFLICT (key) DO NOTHING`,
    [input.key, input.orderId, JSON.stringify(input.items)],
  );
  return rowCount === 1;
}

/** A reservation by key; `lock` takes a row lock for a release in the same transaction. */
export async function findReservation(
  db: pg.Pool | pg.PoolClient,
  key: string,
  options: { lock?: boolean } = {},
): Promise<Reservation | undefined> {
  const { rows } = await db.query<ReservationRow>(
    `SELECT key, order_id, items, status, release_key FROM inventory_reservations
      WHERE key = $1 ${options.lock ? 'FOR UPDATE' : ''}`,
    [key],
  );
  return rows[0] && toReservation(rows[0]);
}

/** An order's reservations (by the order ID the rows record), locked for a release. */
export async function lockReservationsOfOrder(
  client: pg.PoolClient,
  orderId: string,
): Promise<Reservation[]> {
  const { rows } = await client.query<ReservationRow>(
    `SELECT key, order_id, items, status, release_key FROM inventory_reservations
      WHERE order_id = $1 ORDER BY key FOR UPDATE`,
    [orderId],
  );
  return rows.map(toReservation);
}

/** Marks a reservation released under `releaseKey`, in the caller's transaction. */
export async function markReleased(
  client: pg.PoolClient,
  key: string,
  releaseKey: string,
): Promise<void> {
  await client.query(
    `UPDATE inventory_reservations SET status = 'released', release_key = $2, released_at = now()
      WHERE key = $1`,
    [key, releaseKey],
  );
}
