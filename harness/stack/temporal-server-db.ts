import pg from 'pg';
import { runCommand } from './run-command';

/**
 * Temporal's own role and databases in the stack's PostgreSQL, beside onceflow's (which
 * Temporal never sees). Names as docker-compose.yml and Temporal's sample configs have them.
 */
export const TEMPORAL_DB = {
  user: 'temporal',
  persistence: 'temporal',
  visibility: 'temporal_visibility',
} as const;

/** The sql tool's schema for each database, embedded in the tool from the same module. */
const SCHEMA_OF: Record<string, string> = {
  [TEMPORAL_DB.persistence]: 'postgresql/v12/temporal',
  [TEMPORAL_DB.visibility]: 'postgresql/v12/visibility',
};

async function withAdmin<T>(port: number, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database: 'postgres',
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function hasVersionTable(port: number, database: string): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database });
  await client.connect();
  try {
    const { rowCount } = await client.query(
      "SELECT 1 FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'schema_version'",
    );
    return (rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}

/**
 * Creates Temporal's role and databases when missing and brings both schemas to the version
 * the built server expects, with the server's own `temporal-sql-tool` (setup-schema once,
 * then update-schema, which applies only the versions a database lacks). Its schemas are
 * the ones embedded in the tool, so a cleaned Go module cache cannot break a cached build.
 * Idempotent: a second start changes nothing.
 */
export async function prepareTemporalDatabases(sqlTool: string, port: number): Promise<void> {
  await withAdmin(port, async (client) => {
    const role = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [
      TEMPORAL_DB.user,
    ]);
    // Local stack: trust authentication on loopback, so the role has no password.
    if (role.rowCount === 0) await client.query(`CREATE ROLE ${TEMPORAL_DB.user} LOGIN`);
    for (const database of [TEMPORAL_DB.persistence, TEMPORAL_DB.visibility]) {
      const db = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      if (db.rowCount === 0)
        await client.query(`CREATE DATABASE ${database} OWNER ${TEMPORAL_DB.user}`);
    }
  });
  for (const database of [TEMPORAL_DB.persistence, TEMPORAL_DB.visibility]) {
    const connection = [
      '--plugin',
      'postgres12',
      '--ep',
      '127.0.0.1',
      '-p',
      String(port),
      '-u',
      TEMPORAL_DB.user,
      '--db',
      database,
    ];
    if (!(await hasVersionTable(port, database))) {
      await runCommand(sqlTool, [...connection, 'setup-schema', '-v', '0.0']);
    }
    await runCommand(sqlTool, [
      ...connection,
      'update-schema',
      '--schema-name',
      SCHEMA_OF[database]!,
    ]);
  }
}
