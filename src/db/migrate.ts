import type pg from 'pg';
import { migrations as allMigrations, type Migration } from './migrations';
import { quoteSchema } from './schema-name';

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
 * Applies pending migrations. Concurrent callers (a worker and a bridge starting together)
 * serialise on an advisory lock, so each version is applied exactly once. Returns the
 * versions applied by this call.
 */
export async function migrate(pool: pg.Pool, options: MigrateOptions = {}): Promise<number[]> {
  const schema = quoteSchema(options.schema ?? 'public');
  const pending = [...(options.migrations ?? allMigrations)].sort((a, b) => a.version - b.version);
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
      const applied: number[] = [];
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
          applied.push(m.version);
        } catch (err) {
          await client.query('ROLLBACK');
          throw new MigrationError(m.version, m.name, err);
        }
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`onceflow-migrate:${schema}`]);
    }
  } finally {
    client.release();
  }
}
