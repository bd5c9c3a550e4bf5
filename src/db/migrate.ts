import type pg from 'pg';
import { migrations as allMigrations, type Migration } from './migrations';
import { quoteSchema } from '../config/schema-name';

export interface MigrateOptions {
  /** Schema to migrate; created when missing. Default: `public`. Tests use one schema each. */
  schema?: string;
  /** Migrations to apply. Default: all of src/db/migrations. */
  migrations?: readonly Migration[];
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(
    readonly version: number,
    readonly migrationName: string,
    cause: unknown,
  ) {
    super(`migration ${version} (${migrationName}) failed: ${(cause as Error)?.message ?? cause}`, {
      cause,
    });
  }
}

/**
 * The versions applied in `schema` (quoted), or undefined when its schema_migrations table
 * does not exist yet. Reads only: a role without DDL rights can ask.
 */
async function appliedVersions(pool: pg.Pool, schema: string): Promise<Set<number> | undefined> {
  const { rows } = await pool.query<{ present: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS present',
    [`${schema}.schema_migrations`],
  );
  if (!rows[0]?.present) return undefined;
  const applied = await pool.query<{ version: number }>(
    `SELECT version FROM ${schema}.schema_migrations`,
  );
  return new Set(applied.rows.map((r) => r.version));
}

/**
 * Applies pending migrations. Concurrent callers (a worker and a bridge starting together)
 * serialise on an advisory lock, so each version is applied exactly once. Returns the
 * versions applied by this call. A schema that is up to date is only read, never altered:
 * the bridge and the sandbox call this at start, and in production they run as a role
 * without DDL rights (docker-compose's `onceflow_app`) while setup migrates as the owner.
 */
export async function migrate(pool: pg.Pool, options: MigrateOptions = {}): Promise<number[]> {
  const schema = quoteSchema(options.schema ?? 'public');
  const pending = [...(options.migrations ?? allMigrations)].sort((a, b) => a.version - b.version);
  const applied = await appliedVersions(pool, schema);
  if (applied && pending.every((m) => applied.has(m.version))) return [];
  const client = await pool.connect();
  try {
    // Session-level lock keyed on the schema, held across the per-migration transactions.
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`onceflow-migrate:${schema}`]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${schema}.schema_migrations (
           version integer PRIMARY KEY,
           name text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ version: number }>(
        `SELECT version FROM ${schema}.schema_migrations`,
      );
      const done = new Set(rows.map((r) => r.version));
      const appliedNow: number[] = [];
      for (const m of pending.filter((m) => !done.has(m.version))) {
        await client.query('BEGIN');
        try {
          await client.query(`SET LOCAL search_path TO ${schema}`);
          await client.query(m.up);
          await client.query(
            `INSERT INTO ${schema}.schema_migrations (version, name) VALUES ($1, $2)`,
            [m.version, m.name],
          );
          await client.query('COMMIT');
          appliedNow.push(m.version);
        } catch (err) {
          await client.query('ROLLBACK');
          throw new MigrationError(m.version, m.name, err);
        }
      }
      return appliedNow;
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`onceflow-migrate:${schema}`]);
    }
  } finally {
    client.release();
  }
}
