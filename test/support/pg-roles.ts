import pg, { escapeIdentifier } from 'pg';
import type { Config } from '../../src/config';
import { createPool } from '../../src/db/pool';
import { qualifyTable, quoteSchema } from '../../src/config/schema-name';
import { uniqueName } from './services';

/**
 * A superuser connection to the test stack's Postgres: the same address as DATABASE_URL as
 * the `postgres` role, which the local stack's cluster trusts on loopback (initdb
 * --auth=trust, harness/stack/postgres.ts). Tests use it to play the operator: create and alter
 * roles, grant and revoke, end sessions.
 */
export async function withSuperuser<T>(
  database: Config['database'],
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const url = new URL(database.url);
  url.username = 'postgres';
  url.password = '';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A login role that is not a superuser and holds only what the bridge needs on one ledger
 * schema (USAGE on the schema; SELECT, INSERT on processed_events), with a pool of its own:
 * what a least-privilege deployment gives the bridge, so a test can revoke, lock out or make
 * read-only exactly that role, and no other test's.
 */
export class LedgerRole {
  readonly name = uniqueName('bridge_role');
  pool!: pg.Pool;

  constructor(
    private readonly database: Config['database'],
    private readonly schema: string,
  ) {}

  private get table(): string {
    return qualifyTable(this.schema, 'processed_events');
  }

  private get role(): string {
    return escapeIdentifier(this.name);
  }

  async create(): Promise<this> {
    await this.asSuperuser(async (c) => {
      await c.query(`CREATE ROLE ${this.role} LOGIN NOSUPERUSER`);
      await c.query(`GRANT USAGE ON SCHEMA ${quoteSchema(this.schema)} TO ${this.role}`);
      await c.query(`GRANT SELECT, INSERT ON ${this.table} TO ${this.role}`);
    });
    const url = new URL(this.database.url);
    url.username = this.name;
    url.password = '';
    this.pool = createPool({ ...this.database, url: url.toString() }, { schema: this.schema });
    return this;
  }

  /** Runs SQL as the superuser; `%role` and `%table` stand for the quoted role and table. */
  async operator(sql: string): Promise<void> {
    await this.asSuperuser((c) =>
      c.query(sql.replaceAll('%role', this.role).replaceAll('%table', this.table)),
    );
  }

  /** Ends every session of the role: its pool reconnects (as after a failover or restart). */
  async endSessions(): Promise<void> {
    await this.asSuperuser((c) =>
      c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [
        this.name,
      ]),
    );
  }

  /** Closes the pool, ends sessions, drops the role and what was granted to it. */
  async drop(): Promise<void> {
    await this.pool?.end().catch(() => undefined);
    await this.endSessions().catch(() => undefined);
    await this.asSuperuser(async (c) => {
      await c.query(`DROP OWNED BY ${this.role}`);
      await c.query(`DROP ROLE ${this.role}`);
    });
  }

  private asSuperuser<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
    return withSuperuser(this.database, fn);
  }
}

/**
 * Runs `sql` (with `$n` parameters) in `schema` as the superuser with triggers off
 * (`session_replication_role = replica`, a superuser's setting): what no application role can
 * do to workflow_builds, whose trigger refuses every change. Tests play an intruder who got
 * that far, or a build stored before workflow_builds existed.
 */
export async function asSuperuserWithoutTriggers(
  database: Config['database'],
  schema: string,
  sql: string,
  params: unknown[],
): Promise<void> {
  await withSuperuser(database, async (c) => {
    await c.query(`SET search_path TO ${quoteSchema(schema)}`);
    await c.query('SET session_replication_role = replica');
    await c.query(sql, params);
  });
}
