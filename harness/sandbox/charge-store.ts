import { randomUUID } from 'node:crypto';
import type pg from 'pg';

export interface Charge {
  id: string;
  idempotencyKey: string;
  orderId: string;
  customerId: string;
  amountMinor: number;
  currency: string;
  createdAt: string;
}

interface ChargeRow {
  id: string;
  idempotency_key: string;
  order_id: string;
  customer_id: string;
  amount_minor: string;
  currency: string;
  created_at: Date;
}

const COLUMNS = 'id, idempotency_key, order_id, customer_id, amount_minor, currency, created_at';

function toCharge(r: ChargeRow): Charge {
  return {
    id: r.id,
    idempotencyKey: r.idempotency_key,
    orderId: r.order_id,
    customerId: r.customer_id,
    amountMinor: Number(r.amount_minor),
    currency: r.currency,
    createdAt: r.created_at.toISOString(),
  };
}

/**
 * Inserts a charge inside the caller's transaction. Not unique per key (migration 0006): a key
 * the key store has forgotten charges again, as at a real provider.
 */
export async function insertCharge(
  client: pg.PoolClient,
  input: Omit<Charge, 'id' | 'createdAt'>,
): Promise<Charge> {
  const { rows } = await client.query<ChargeRow>(
    `INSERT INTO provider_charges (id, idempotency_key, order_id, customer_id, amount_minor, currency)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [
      `ch_${randomUUID()}`,
      input.idempotencyKey,
      input.orderId,
      input.customerId,
      input.amountMinor,
      input.currency,
    ],
  );
  return toCharge(rows[0]!);
}

export async function findChargeById(
  db: pg.Pool | pg.PoolClient,
  id: string,
): Promise<Charge | undefined> {
  const { rows } = await db.query<ChargeRow>(
    `SELECT ${COLUMNS} FROM provider_charges WHERE id = $1`,
    [id],
  );
  return rows[0] && toCharge(rows[0]);
}

export async function listChargesByOrder(
  db: pg.Pool | pg.PoolClient,
  orderId: string,
): Promise<Charge[]> {
  const { rows } = await db.query<ChargeRow>(
    `SELECT ${COLUMNS} FROM provider_charges WHERE order_id = $1 ORDER BY created_at, id`,
    [orderId],
  );
  return rows.map(toCharge);
}

export async function listChargesByKey(
  db: pg.Pool | pg.PoolClient,
  key: string,
): Promise<Charge[]> {
  const { rows } = await db.query<ChargeRow>(
    `SELECT ${COLUMNS} FROM provider_charges WHERE idempotency_key = $1`,
    [key],
  );
  return rows.map(toCharge);
}
