import type pg from 'pg';

/**
 * Takes `quantity` units of `sku` if that many are available, in the caller's transaction.
 * The conditional UPDATE locks the row, so two takers of the last unit serialise and the
 * second re-checks `available` after the first commits: exactly one wins.
 */
export async function takeStock(
  client: pg.PoolClient,
  sku: string,
  quantity: number,
): Promise<boolean> {
  const { rowCount } = await client.query(
    `UPDATE inventory_stock SET available = available - $2, updated_at = now()
      WHERE sku = $1 AND available >= $2`,
    [sku, quantity],
  );
  return rowCount === 1;
}

/** Gives units back (release of a reservation), in the caller's transaction. */
export async function returnStock(
  client: pg.PoolClient,
  sku: string,
  quantity: number,
): Promise<void> {
  await client.query(
    `UPDATE inventory_stock SET available = available + $2, updated_at = now() WHERE sku = $1`,
    [sku, quantity],
  );
}

/** Units available now (0 for an unknown SKU). */
export async function readStock(db: pg.Pool | pg.PoolClient, sku: string): Promise<number> {
  const { rows } = await db.query<{ available: number }>(
    'SELECT available FROM inventory_stock WHERE sku = $1',
    [sku],
  );
  return rows[0]?.available ?? 0;
}

/** Sets the stock of a SKU (seeding, tests, the demo). */
export async function setStock(db: pg.Pool, sku: string, available: number): Promise<void> {
  await db.query(
    `INSERT INTO inventory_stock (sku, available) VALUES ($1, $2)
     ON CONFLICT (sku) DO UPDATE SET available = EXCLUDED.available, updated_at = now()`,
    [sku, available],
  );
}
