import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/** A carrier's shipment of an order or cart. */
export interface Shipment {
  id: string;
  idempotencyKey: string;
  orderId: string;
  address: string;
  createdAt: string;
  /** Set once the shipment was cancelled, with the key of the request that cancelled it. */
  cancelKey: string | null;
  cancelledAt: string | null;
}

interface ShipmentRow {
  id: string;
  idempotency_key: string;
  order_id: string;
  address: string;
  created_at: Date;
  cancel_key: string | null;
  cancelled_at: Date | null;
}

const COLUMNS = 'id, idempotency_key, order_id, address, created_at, cancel_key, cancelled_at';

function toShipment(r: ShipmentRow): Shipment {
  return {
    id: r.id,
    idempotencyKey: r.idempotency_key,
    orderId: r.order_id,
    address: r.address,
    createdAt: r.created_at.toISOString(),
    cancelKey: r.cancel_key,
    cancelledAt: r.cancelled_at?.toISOString() ?? null,
  };
}

/** Books a shipment in the caller's transaction (not unique per key: migration 0010). */
export async function insertShipment(
  client: pg.PoolClient,
  input: Pick<Shipment, 'idempotencyKey' | 'orderId' | 'address'>,
): Promise<Shipment> {
  const { rows } = await client.query<ShipmentRow>(
    `INSERT INTO provider_shipments (id, idempotency_key, order_id, address)
     VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [`sh_${randomUUID()}`, input.idempotencyKey, input.orderId, input.address],
  );
  return toShipment(rows[0]!);
}

/**
 * Cancels, in the caller's transaction, every shipment of the order not cancelled yet, under
 * `cancelKey`; the row locks make two cancellations of one shipment act once. Returns the
 * shipments cancelled now and those cancelled before.
 */
export async function cancelShipments(
  client: pg.PoolClient,
  input: { orderId: string; cancelKey: string },
): Promise<{ cancelled: Shipment[]; earlier: Shipment[] }> {
  const { rows } = await client.query<ShipmentRow>(
    `SELECT ${COLUMNS} FROM provider_shipments WHERE order_id = $1 ORDER BY id FOR UPDATE`,
    [input.orderId],
  );
  const earlier = rows.filter((r) => r.cancelled_at !== null).map(toShipment);
  const open = rows.filter((r) => r.cancelled_at === null).map((r) => r.id);
  if (open.length === 0) return { cancelled: [], earlier };
  const updated = await client.query<ShipmentRow>(
    `UPDATE provider_shipments SET cancel_key = $2, cancelled_at = now()
      WHERE id = ANY($1::text[]) RETURNING ${COLUMNS}`,
    [open, input.cancelKey],
  );
  return { cancelled: updated.rows.map(toShipment), earlier };
}

export async function listShipmentsByOrder(db: pg.Pool, orderId: string): Promise<Shipment[]> {
  const { rows } = await db.query<ShipmentRow>(
    `SELECT ${COLUMNS} FROM provider_shipments WHERE order_id = $1 ORDER BY created_at, id`,
    [orderId],
  );
  return rows.map(toShipment);
}

/** Shipments booked, or cancelled, under `key`. */
export async function listShipmentsByKey(db: pg.Pool, key: string): Promise<Shipment[]> {
  const { rows } = await db.query<ShipmentRow>(
    `SELECT ${COLUMNS} FROM provider_shipments WHERE idempotency_key = $1 OR cancel_key = $1
      ORDER BY created_at, id`,
    [key],
  );
  return rows.map(toShipment);
}
