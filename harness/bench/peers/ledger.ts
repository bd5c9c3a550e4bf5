import type pg from 'pg';
import type { PeerLedger } from './invariants';

/**
 * Reads one system's effects from its own providers schema and inventory schema (each system
 * gets fresh ones, so nothing from another system or run is counted).
 */
export async function readPeerLedger(
  pool: pg.Pool,
  schemas: { providers: string; inventory: string },
): Promise<PeerLedger> {
  const p = schemas.providers;
  const i = schemas.inventory;
  const charges = await pool.query<{ order_id: string; amount_minor: string }>(
    `SELECT order_id, amount_minor FROM ${p}.provider_charges`,
  );
  const emails = await pool.query<{ order_id: string }>(
    `SELECT order_id FROM ${p}.provider_emails`,
  );
  const reservations = await pool.query<{ order_id: string }>(
    `SELECT order_id FROM ${i}.inventory_reservations`,
  );
  return {
    charges: charges.rows.map((r) => ({
      orderId: r.order_id,
      amountMinor: Number(r.amount_minor),
    })),
    emails: emails.rows.map((r) => ({ orderId: r.order_id })),
    reservations: reservations.rows.map((r) => ({ orderId: r.order_id })),
  };
}

/** Orders with their confirmation email (the last step): the common "completed" of all systems. */
export async function countCompleted(pool: pg.Pool, providersSchema: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(DISTINCT order_id) AS n FROM ${providersSchema}.provider_emails`,
  );
  return Number(rows[0]?.n ?? 0);
}

/** When each of `orderIds` got its email (ms since epoch); missing ones are absent. */
export async function completionTimes(
  pool: pg.Pool,
  providersSchema: string,
  orderIds: string[],
): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ order_id: string; at: Date }>(
    `SELECT order_id, min(created_at) AS at FROM ${providersSchema}.provider_emails
      WHERE order_id = ANY($1) GROUP BY order_id`,
    [orderIds],
  );
  return new Map(rows.map((r) => [r.order_id, r.at.getTime()]));
}
