// How an error of our own Postgres reads: Postgres' SQLSTATEs, node-postgres' own connection
// failures and Node's network codes, with the fault each means. One table for the bridge (an
// environment fault stalls its partition, src/kafka-bridge/classify-error.ts) and for the
// worker (a database outage waits like a provider's, src/worker/database-outage.ts). Pure.

/** What a Postgres error says of the database (the bridge's environment faults by these names). */
export type PgFault =
  | 'unavailable'
  | 'contention'
  | 'authentication'
  | 'permission'
  | 'schema-missing'
  | 'read-only'
  | 'disk-full'
  | 'resources';

/**
 * Node's network error codes (errno) meaning "could not reach or lost the peer". A message
 * cannot cause any of these.
 */
export const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ESOCKETTIMEDOUT',
]);

/**
 * SQLSTATEs (exact codes first, then two-character classes) that are the environment's:
 * - 08 connection exception, 57P01..57P03 admin/crash shutdown and cannot-connect-now, 57014
 *   query_canceled (our statement timeout), 58 system error (I/O): unavailable;
 * - 40001 serialization failure, 40P01 deadlock, 55P03 lock_not_available: contention;
 * - 28 invalid authorization (bad password, role may not log in): authentication;
 * - 42501 insufficient_privilege: permission;
 * - 42P01 undefined_table, 42703 undefined_column, 42883 undefined_function, 42704
 *   undefined_object, 3F000 invalid_schema_name: schema-missing (the bridge's SQL names only
 *   its own ledger table, so these mean unmigrated or altered schema, never the message);
 * - 25006 read_only_sql_transaction: read-only;
 * - 53100 disk_full: disk-full; the rest of 53 (out of memory, too many connections,
 *   configuration limit): resources.
 * Classes 22 (data exception), 23 (integrity) and the rest of 42 (syntax and kin: a bug in a
 * statement) are the request's; anything else is unknown.
 */
export const SQLSTATE_ENVIRONMENT: ReadonlyMap<string, PgFault> = new Map([
  ['57P01', 'unavailable'],
  ['57P02', 'unavailable'],
  ['57P03', 'unavailable'],
  ['57014', 'unavailable'],
  ['40001', 'contention'],
  ['40P01', 'contention'],
  ['55P03', 'contention'],
  ['42501', 'permission'],
  ['42P01', 'schema-missing'],
  ['42703', 'schema-missing'],
  ['42883', 'schema-missing'],
  ['42704', 'schema-missing'],
  ['3F000', 'schema-missing'],
  ['25006', 'read-only'],
  ['53100', 'disk-full'],
]);
export const SQLSTATE_ENVIRONMENT_CLASSES: ReadonlyMap<string, PgFault> = new Map([
  ['08', 'unavailable'],
  ['58', 'unavailable'],
  ['28', 'authentication'],
  ['53', 'resources'],
]);
export const SQLSTATE_PERMANENT_CLASSES: ReadonlySet<string> = new Set(['22', '23', '42']);

/**
 * node-postgres's own connection failures carry no code, only these messages (pg and
 * pg-pool source): a lost or timed-out connection.
 */
export const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout|Connection terminated due to connection timeout)/;

/**
 * Faults of a database that is going, gone or busy, which time resolves by itself (a
 * failover, a restart, a read-only replica being promoted, a serialization retry): a step
 * meeting one waits in a waiting round like a provider outage. Everything else (a constraint,
 * a missing relation, a syntax error, a privilege) needs a person: the step parks.
 */
export const OUTAGE_FAULTS: ReadonlySet<PgFault> = new Set([
  'unavailable',
  'contention',
  'read-only',
  'resources',
]);

const field = (err: unknown, name: string): unknown =>
  typeof err === 'object' && err !== null ? (err as Record<string, unknown>)[name] : undefined;

/**
 * The database outage behind an error (its cause chain walked), as `<code>: <fault>`, or
 * undefined when it is not one (then it is the request's, or not the database's at all).
 */
export function databaseOutageOf(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current != null; depth++) {
    const code = field(current, 'code');
    if (typeof code === 'string') {
      if (TRANSIENT_NETWORK_CODES.has(code)) return `${code}: unavailable`;
      if (/^[0-9A-Z]{5}$/.test(code) && field(current, 'severity') !== undefined) {
        const fault =
          SQLSTATE_ENVIRONMENT.get(code) ?? SQLSTATE_ENVIRONMENT_CLASSES.get(code.slice(0, 2));
        return fault && OUTAGE_FAULTS.has(fault) ? `${code}: ${fault}` : undefined;
      }
    }
    const message = field(current, 'message');
    if (typeof message === 'string' && PG_CONNECTION_MESSAGES.test(message))
      return 'connection: unavailable';
    current = field(current, 'cause');
  }
  return undefined;
}
