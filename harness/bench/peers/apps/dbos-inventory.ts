/**
 * The DBOS app's reservation as a DBOS transaction: `@dbos-inc/postgres-datasource` (postgres.js)
 * on the run's inventory schema, src/inventory's reservation statements run on its transaction,
 * and a limit on how many reservations use the datasource at once.
 *
 * Why the limit: postgres.js (the datasource's driver, 3.4.9, the newest) raises
 * UNSAFE_TRANSACTION when a BEGIN completes on a connection that `sql.begin` has not reserved;
 * the only BEGIN on this pool is `sql.begin`'s own (the inventory statements issue none).
 * `sql.begin` reserves its connection only when its BEGIN is written as the sole query of an
 * idle connection: under a saturated pool it can be pipelined onto a busy connection, or
 * written at the pipeline limit, and the reservation is skipped (porsager/postgres#823,
 * #1189). A DBOS transaction fails its workflow on any error but a serialization failure, so
 * each one was an order that never completed (the first attempt's stall, ~470 orders in a
 * 2-minute run: kafkajs-receive starts workflows with no in-flight limit). Each reservation
 * holds at most one connection at a time (the datasource's completion check, then its
 * transaction, then, on error, its error row), so with no more reservations in flight than
 * the pool has connections, a BEGIN always finds an idle connection.
 */
import { PostgresDataSource } from '@dbos-inc/postgres-datasource';
import type pg from 'pg';
import postgres from 'postgres';
import type { OrderPlacedData } from '../../../../src/domains/orders/order-events';
import {
  reserveInTransaction,
  type ReserveResult,
} from '../../../../src/domains/orders/inventory/inventory-service';
import { reserveInputOf } from '../order-steps';

/**
 * JSON parameters as node-postgres binds them, which is what the inventory statements are
 * written for: a string is already JSON text (`JSON.stringify(items)`), anything else is
 * stringified. postgres.js's default stringifies every value bound to json/jsonb, so the
 * reservation's lines would land as one JSON string instead of an array.
 */
const jsonLikeNodePg: postgres.PostgresType = {
  to: 114,
  from: [114, 3802],
  serialize: (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x)),
  parse: (x: string) => JSON.parse(x) as unknown,
};

/** postgres.js options, as the datasource takes them. */
type DatasourceOptions = NonNullable<ConstructorParameters<typeof PostgresDataSource>[1]>;

/** postgres.js options for the stack's database: `max` connections, `schema` first. */
function datasourceOptions(url: string, schema: string, max: number): DatasourceOptions {
  const u = new URL(url);
  return {
    types: { json: jsonLikeNodePg },
    host: u.hostname,
    port: Number(u.port || 5432),
    database: decodeURIComponent(u.pathname.slice(1)),
    user: decodeURIComponent(u.username),
    password: u.password ? decodeURIComponent(u.password) : undefined,
    max,
    connection: { search_path: schema },
    onnotice: () => undefined,
  };
}

/**
 * The datasource's postgres.js transaction as the `query(text, values)` the inventory
 * statements call. `unsafe` takes their `$n` parameters as bound parameters (nothing is
 * interpolated); postgres.js parses timestamptz, jsonb and integers as node-postgres does, and
 * `count` is the affected rows. No statement of reserveInTransaction begins or ends a
 * transaction: the datasource's `begin` owns it.
 */
function asQueryClient(sql: postgres.TransactionSql): pg.PoolClient {
  const query = async (text: string, values: unknown[] = []) => {
    const rows = await sql.unsafe(text, values as postgres.ParameterOrJSON<never>[]);
    return { rows: [...rows], rowCount: rows.count };
  };
  // The reservation statements use `query` only; nothing else of PoolClient is reached.
  return { query } as unknown as pg.PoolClient;
}

/** At most `permits` calls of `fn` at once; the others wait in arrival order. */
function limitConcurrency(permits: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (active < permits) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await fn();
    } finally {
      // The permit passes straight to the next waiter, else it is returned.
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

export interface InventoryDatasourceOptions {
  databaseUrl: string;
  /** The run's inventory schema: the reservation's tables and the completion table. */
  schema: string;
  /** Pool size, and the most reservations in flight (see the file's comment). */
  concurrency: number;
}

/**
 * Registers the reservation as a DBOS transaction (before DBOS.launch) and returns it: claims
 * the order for `owner` and reserves its lines, the datasource committing its completion row
 * with them, so a workflow's reservation runs once.
 */
export function registerReserve(
  options: InventoryDatasourceOptions,
): (order: OrderPlacedData, owner: string) => Promise<ReserveResult> {
  const pgOptions = datasourceOptions(options.databaseUrl, options.schema, options.concurrency);
  // Its completion table (transaction_completion) goes in the run's inventory schema: the same
  // database as the rows it commits with, and gone with the run's other data. The datasource
  // creates it at launch when it is missing.
  const inventory = new PostgresDataSource('inventory', pgOptions, options.schema);
  const reserve = inventory.registerTransaction(
    (order: OrderPlacedData, owner: string) =>
      reserveInTransaction(asQueryClient(inventory.client), reserveInputOf(order, owner)),
    { name: 'reserve' },
  );
  const limit = limitConcurrency(options.concurrency);
  return (order, owner) => limit(() => reserve(order, owner));
}
