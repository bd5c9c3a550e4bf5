import type pg from 'pg';

export interface CheckDatabaseInput {
  /** Schema whose migration level is reported. Default: public. */
  schema?: string;
}

export interface CheckDatabaseResult {
  serverVersion: string;
  migrationVersion: number;
}

/**
 * Activities that prove the worker can reach its own Postgres: used by the smoke-check
 * workflow (demo, tests) and by operators after a deploy.
 */
export function createSystemActivities(deps: { pool: pg.Pool }) {
  return {
    async checkDatabase(input: CheckDatabaseInput): Promise<CheckDatabaseResult> {
      const schema = input.schema ?? 'public';
      const version = await deps.pool.query<{ server_version: string }>('SHOW server_version');
      // Identifiers cannot be $n parameters; the schema is checked against the catalogue
      // first and then quoted.
      const exists = await deps.pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
        schema,
      ]);
      if (exists.rowCount === 0) throw new Error(`schema ${schema} does not exist`);
      const level = await deps.pool.query<{ version: number | null }>(
        `SELECT max(version) AS version FROM "${schema.replace(/"/g, '""')}".schema_migrations`,
      );
      return {
        serverVersion: version.rows[0]!.server_version,
        migrationVersion: level.rows[0]?.version ?? 0,
      };
    },
  };
}
