import type pg from 'pg';
import { schemaOfPool } from './pool';
import { qualifyTable } from '../config/schema-name';

/**
 * The providers' pace, table `provider_pace` (migration 0013): the only code that touches it.
 * Schema-qualified with the pool's schema (DATABASE_SCHEMA), `$n` parameters only.
 */
export interface ProviderPaceStore {
  /**
   * Claims the next call's moment for `provider`, `intervalMs` after the one before it (or
   * now, when the provider has been quiet): `waitMs`, how long to wait for it as Postgres'
   * clock counts (the same clock for every worker), `atMs` the moment itself and `nowMs`
   * Postgres' clock when it answered (both ms since the epoch).
   */
  claim(
    provider: string,
    intervalMs: number,
  ): Promise<{ waitMs: number; atMs: number; nowMs: number }>;
}

export function createProviderPaceStore(pool: pg.Pool, schema?: string): ProviderPaceStore {
  const table = qualifyTable(schema ?? schemaOfPool(pool) ?? 'public', 'provider_pace');
  return {
    async claim(provider, intervalMs) {
      // One statement under the row's lock: claims are spaced exactly `intervalMs` apart,
      // however many workers claim at once. clock_timestamp(), not now(): the moment of the
      // claim, not of the transaction's start.
      const { rows } = await pool.query<{ wait_ms: number; at_ms: number; now_ms: number }>(
        `INSERT INTO ${table} AS p (provider, next_at)
              VALUES ($1, clock_timestamp() + make_interval(secs => $2::float8 / 1000))
         ON CONFLICT (provider) DO UPDATE
              SET next_at = GREATEST(p.next_at, clock_timestamp())
                            + make_interval(secs => $2::float8 / 1000)
         RETURNING GREATEST(0, EXTRACT(EPOCH FROM (p.next_at - clock_timestamp())) * 1000
                               - $2::float8)::float8 AS wait_ms,
                   (EXTRACT(EPOCH FROM p.next_at) * 1000 - $2::float8)::float8 AS at_ms,
                   (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::float8 AS now_ms`,
        [provider, intervalMs],
      );
      const row = rows[0]!;
      return { waitMs: row.wait_ms, atMs: row.at_ms, nowMs: row.now_ms };
    },
  };
}
