/**
 * `--prefill N` of the drain: N rows in each table that grows with every order onceflow
 * handles, before the drain runs over them, so a drain over a year's worth of rows can be read
 * against one over empty tables (cost flat as the work grows). The rows look like the
 * product's: a ledger row per identity seen within LEDGER_RETENTION_DAYS (so the reaper keeps
 * them), a settled claim per order (claims never expire), a reservation per order. Then VACUUM
 * ANALYZE, as autovacuum would have done long before a drain ran over them.
 */
import type pg from 'pg';

/** The tables a drained order writes a row into, prefilled. */
export const GROWING_TABLES = ['processed_events', 'entity_claims', 'inventory_reservations'];

/** Every onceflow table a drained order touches, whose size the drain prints. */
export const DRAIN_TABLES = [...GROWING_TABLES, 'inventory_stock'];

/** Rows per INSERT: a bounded transaction and a progress line every so often. */
const CHUNK = 250_000;

const INSERTS: Record<string, string> = {
  processed_events: `
    INSERT INTO processed_events (identity, event_type, event_id, aggregate_id, aggregate_version,
      fingerprint, workflow_id, run_id, source_topic, source_partition, source_offset, first_seen_at)
    SELECT 'prefill-order-' || i || '@1', 'OrderPlaced', 'evt-prefill-' || md5(i::text),
           'prefill-order-' || i, 1, encode(sha256(i::text::bytea), 'hex'),
           'OrderPlaced:prefill-order-' || i || '@1', md5('run' || i), 'orders', i % 6, i,
           now() - random() * interval '29 days'
      FROM generate_series($1::bigint, $2::bigint) AS i`,
  entity_claims: `
    INSERT INTO entity_claims (domain, entity_id, workflow_id, run_id, fingerprint, claimed_at,
      settled, settled_at)
    SELECT 'orders', 'prefill-order-' || i, 'OrderPlaced:prefill-order-' || i || '@1',
           md5('run' || i), encode(sha256(i::text::bytea), 'hex'), t, 'completed',
           t + interval '2 seconds'
      FROM (SELECT i, now() - random() * interval '365 days' AS t
              FROM generate_series($1::bigint, $2::bigint) AS i) s`,
  inventory_reservations: `
    INSERT INTO inventory_reservations (key, order_id, items, status, created_at)
    SELECT 'order:prefill-order-' || i || ':reserve', 'prefill-order-' || i,
           jsonb_build_array(jsonb_build_object('sku', 'PREFILL-SKU-' || (i % 5), 'quantity', 1 + i % 3)),
           'reserved', now() - random() * interval '365 days'
      FROM generate_series($1::bigint, $2::bigint) AS i`,
};

/** Inserts `rows` rows into each growing table of the pool's schema, then VACUUM ANALYZE. */
export async function prefillTables(
  pool: pg.Pool,
  rows: number,
  log: (line: string) => void,
): Promise<void> {
  if (rows <= 0) return;
  for (const table of GROWING_TABLES) {
    const started = Date.now();
    for (let from = 1; from <= rows; from += CHUNK) {
      const to = Math.min(rows, from + CHUNK - 1);
      await pool.query(INSERTS[table]!, [from, to]);
      if (to < rows) log(`prefill ${table}: ${to} of ${rows} rows`);
    }
    await pool.query(`VACUUM ANALYZE ${table}`);
    log(`prefill ${table}: ${rows} rows in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
}

/** One table's size: rows, heap (with TOAST) and its indexes, in MiB. */
export interface TableSize {
  table: string;
  rows: number;
  tableMiB: number;
  indexesMiB: number;
}

const mib = (bytes: string | number) => Number((Number(bytes) / 2 ** 20).toFixed(1));

/** Sizes of `tables` in the pool's schema (exact row counts: a drain reads them twice). */
export async function tableSizes(pool: pg.Pool, tables = DRAIN_TABLES): Promise<TableSize[]> {
  const out: TableSize[] = [];
  for (const table of tables) {
    const { rows } = await pool.query<{ n: string; heap: string; idx: string }>(
      `SELECT (SELECT count(*) FROM ${table}) AS n,
              pg_table_size($1::regclass) AS heap, pg_indexes_size($1::regclass) AS idx`,
      [table],
    );
    const r = rows[0]!;
    out.push({ table, rows: Number(r.n), tableMiB: mib(r.heap), indexesMiB: mib(r.idx) });
  }
  return out;
}
