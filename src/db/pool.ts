import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { Config } from '../config';
import { checkSchemaName } from '../config/schema-name';

/** Options for createPool. */
export interface CreatePoolOptions {
  /**
   * Schema put on every connection's search_path, so stores that use unqualified table names
   * (inventory, provider sandbox) find their tables; tests pass one schema each. Default:
   * `database.schema` (DATABASE_SCHEMA), so the worker's activities read the same schema the
   * bridge's ledger and the migrations use.
   */
  schema?: string;
  /**
   * Called when an idle connection dies (a Postgres restart, a network cut). Default: ignore;
   * the pool drops the connection and the next query opens a new one.
   */
  onIdleError?: (err: Error) => void;
}

/** The schema createPool put on each pool's search_path (see schemaOfPool). */
const POOL_SCHEMA = new WeakMap<pg.Pool, string>();

/**
 * The schema on a pool's search_path when createPool made it; undefined for other pools. Lets
 * stores that qualify their table names (the ledger) default to the schema the pool serves.
 */
export function schemaOfPool(pool: pg.Pool): string | undefined {
  return POOL_SCHEMA.get(pool);
}

/**
 * A pg pool from config. SSL `require` and `verify-full` verify the certificate chain and the
 * host name, `verify-ca` the chain only; the URL carries no TLS parameters (config rejects
 * them, pg would let them win).
 */
export function createPool(database: Config['database'], options: CreatePoolOptions = {}): pg.Pool {
  const ssl =
    database.ssl === 'disable'
      ? undefined
      : {
          rejectUnauthorized: true,
          // `verify-ca`: the chain is checked, the name is not (a server reached by IP or an
          // alias). Every other mode keeps Node's host-name check: a valid certificate for
          // another host (any CA customer's) must not do.
          ...(database.ssl === 'verify-ca' ? { checkServerIdentity: () => undefined } : {}),
          ca: database.sslCaPath ? readFileSync(database.sslCaPath, 'utf8') : undefined,
        };
  const schema = checkSchemaName(options.schema ?? database.schema);
  const pool = new pg.Pool({
    connectionString: database.url,
    ssl,
    max: database.poolMax,
    options: `-c search_path=${schema}`,
    // A dependency must not hang the bridge: a connect that never completes, a statement
    // waiting on a lock someone else holds, a session left idle inside a transaction all
    // end in an error the caller classifies (classify-error.ts) and retries.
    connectionTimeoutMillis: database.connectTimeoutMs,
    statement_timeout: database.statementTimeoutMs || undefined,
    idle_in_transaction_session_timeout: database.idleInTransactionTimeoutMs || undefined,
    // Client-side backstop for a server that stops answering without closing the socket
    // (statement_timeout runs on the server): a little later than the server's own timeout.
    query_timeout: database.statementTimeoutMs ? database.statementTimeoutMs + 5_000 : undefined,
  });
  POOL_SCHEMA.set(pool, schema);
  // Without a listener, an idle client's error would be an unhandled 'error' event and
  // crash the process; a restarted Postgres must only cost the queries in flight.
  const onError = options.onIdleError ?? (() => undefined);
  pool.on('error', onError);
  // A checked-out client whose connection dies emits on the client, not the pool; the query
  // in flight fails (and is retried by its caller), the process must not.
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}
