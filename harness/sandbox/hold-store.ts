import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/** A warehouse's hold of one line (a SKU and its units) of an order or cart. */
export interface Hold {
  id: string;
  idempotencyKey: string;
  orderId: string;
  sku: string;
  quantity: number;
  createdAt: string;
  /** Set once the hold was released, with the key of the request that released it. */
  releaseKey: string | null;
  releasedAt: string | null;
}

interface HoldRow {
  id: string;
  idempotency_key: string;
  order_id: string;
  sku: string;
  quantity: number;
  created_at: Date;
  release_key: string | null;
  released_at: Date | null;
}

const COLUMNS =
  'id, idempotency_key, order_id, sku, quantity, created_at, release_key, released_at';

function toHold(r: HoldRow): Hold {
  return {
    id: r.id,
    idempotencyKey: r.idempotency_key,
    orderId: r.order_id,
    sku: r.sku,
    quantity: r.quantity,
    createdAt: r.created_at.toISOString(),
    releaseKey: r.release_key,
    releasedAt: r.released_at?.toISOString() ?? null,
  };
}

/** Inserts a hold in the caller's transaction (not unique per key: migration 0010). */
export async function insertHold(
  client: pg.PoolClient,
  input: Pick<Hold, 'idempotencyKey' | 'orderId' | 'sku' | 'quantity'>,
): Promise<Hold> {
  const { rows } = await client.query<HoldRow>(
    `INSERT INTO provider_holds (id, idempotency_key, order_id, sku, quantity)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [`ho_${randomUUID()}`, input.idempotencyKey, input.orderId, input.sku, input.quantity],
  );
  return toHold(rows[0]!);
}

/**
 * Releases, in the caller's transaction, every hold of the order (of one SKU when given) not
 * released yet, under `releaseKey`; the row locks make two releases of one hold act once.
 * Returns the holds released now and those released before.
 */
export async function releaseHolds(
  client: pg.PoolClient,
  input: { orderId: string; sku?: string; releaseKey: string },
): Promise<{ released: Hold[]; earlier: Hold[] }> {
  const { rows } = await client.query<HoldRow>(
    `SELECT ${COLUMNS} FROM provider_holds
      WHERE order_id = $1 AND ($2::text IS NULL OR sku = $2) ORDER BY id FOR UPDATE`,
    [input.orderId, input.sku ?? null],
  );
  const earlier = rows.filter((r) => r.released_at !== null).map(toHold);
  const open = rows.filter((r) => r.released_at === null).map((r) => r.id);
  if (open.length === 0) return { released: [], earlier };
  const updated = await client.query<HoldRow>(
    `UPDATE provider_holds SET release_key = $2, released_at = now()
      WHERE id = ANY($1::text[]) RETURNING ${COLUMNS}`,
    [open, input.releaseKey],
  );
  return { released: updated.rows.map(toHold), earlier };
}

export async function listHoldsByOrder(db: pg.Pool, orderId: string): Promise<Hold[]> {
  const { rows } = await db.query<HoldRow>(
    `SELECT ${COLUMNS} FROM provider_holds WHERE order_id = $1 ORDER BY created_at, id`,
    [orderId],
  );
  return rows.map(toHold);
}

/** Holds made, or released, under `key`. */
export async function listHoldsByKey(db: pg.Pool, key: string): Promise<Hold[]> {
  const { rows } = await db.query<HoldRow>(
    `SELECT ${COLUMNS} FROM provider_holds WHERE idempotency_key = $1 OR release_key = $1
      ORDER BY created_at, id`,
    [key],
  );
  return rows.map(toHold);
}
