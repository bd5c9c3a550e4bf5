import { randomUUID } from 'node:crypto';
import type pg from 'pg';

export interface Refund {
  id: string;
  idempotencyKey: string;
  chargeId: string;
  orderId: string;
  amountMinor: number;
  createdAt: string;
}

interface RefundRow {
  id: string;
  idempotency_key: string;
  charge_id: string;
  order_id: string;
  amount_minor: string;
  created_at: Date;
}

const COLUMNS = 'id, idempotency_key, charge_id, order_id, amount_minor, created_at';

function toRefund(r: RefundRow): Refund {
  return {
    id: r.id,
    idempotencyKey: r.idempotency_key,
    chargeId: r.charge_id,
    orderId: r.order_id,
    amountMinor: Number(r.amount_minor),
    createdAt: r.created_at.toISOString(),
  };
}

/**
 * Inserts a full refund in the caller's transaction; unique on charge (a charge is refunded
 * once) and on (key, charge) (one request may refund several charges of an order).
 */
export async function insertRefund(
  client: pg.PoolClient,
  input: Omit<Refund, 'id' | 'createdAt'>,
): Promise<Refund> {
  const { rows } = await client.query<RefundRow>(
    `INSERT INTO provider_refunds (id, idempotency_key, charge_id, order_id, amount_minor)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [`re_${randomUUID()}`, input.idempotencyKey, input.chargeId, input.orderId, input.amountMinor],
  );
  return toRefund(rows[0]!);
}

export async function findRefundByCharge(
  db: pg.Pool | pg.PoolClient,
  chargeId: string,
): Promise<Refund | undefined> {
  const { rows } = await db.query<RefundRow>(
    `SELECT ${COLUMNS} FROM provider_refunds WHERE charge_id = $1`,
    [chargeId],
  );
  return rows[0] && toRefund(rows[0]);
}

export async function listRefundsByOrder(db: pg.Pool, orderId: string): Promise<Refund[]> {
  const { rows } = await db.query<RefundRow>(
    `SELECT ${COLUMNS} FROM provider_refunds WHERE order_id = $1 ORDER BY created_at, id`,
    [orderId],
  );
  return rows.map(toRefund);
}

export async function listRefundsByKey(db: pg.Pool, key: string): Promise<Refund[]> {
  const { rows } = await db.query<RefundRow>(
    `SELECT ${COLUMNS} FROM provider_refunds WHERE idempotency_key = $1`,
    [key],
  );
  return rows.map(toRefund);
}
