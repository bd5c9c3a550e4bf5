/**
 * The order workload as a DBOS app: `@dbos-inc/kafkajs-receive` turns each record into a
 * workflow (its ID derived from topic, partition, group and offset: a redelivered offset runs
 * once) whose reservation is a DBOS transaction and whose charge and email are checkpointed
 * steps. The transaction runs src/inventory's reservation statements (which also claim the
 * order, so duplicates stop there) inside `@dbos-inc/postgres-datasource`'s transaction, which
 * commits DBOS's completion row with them: the reservation runs exactly once per workflow.
 *
 * Started by bench/peers (node --import tsx); not part of the product's typecheck.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { KafkaReceiver } from '@dbos-inc/kafkajs-receive';
import { PostgresDataSource } from '@dbos-inc/postgres-datasource';
import { logLevel, type KafkaMessage } from 'kafkajs';
import type pg from 'pg';
import type postgres from 'postgres';
import type { OrderPlacedData } from '../../../src/events/order-events';
import { reserveInTransaction } from '../../../src/inventory/inventory-service';
import { createProviderSteps, orderOfValue, readAppEnv, reserveInputOf } from '../order-steps';
import { addLegacyDatasourceHelpers } from './dbos-datasource-compat';

addLegacyDatasourceHelpers();

const env = readAppEnv();
const steps = createProviderSteps({ providersUrl: env.providersUrl });
const retry = { retriesAllowed: true, maxAttempts: 10, intervalSeconds: 1 };

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

/** postgres.js options for the stack's database, the run's inventory schema first. */
function datasourceOptions(url: string): postgres.Options<{ json: postgres.PostgresType }> {
  const u = new URL(url);
  return {
    types: { json: jsonLikeNodePg },
    host: u.hostname,
    port: Number(u.port || 5432),
    database: decodeURIComponent(u.pathname.slice(1)),
    user: decodeURIComponent(u.username),
    password: u.password ? decodeURIComponent(u.password) : undefined,
    max: env.concurrency,
    connection: { search_path: env.schema },
    onnotice: () => undefined,
  };
}

const options = datasourceOptions(env.databaseUrl);
// Its completion table (transaction_completion) goes in the run's inventory schema: the same
// database as the rows it commits with, and gone with the run's other data.
const inventory = new PostgresDataSource('inventory', options, env.schema);

/**
 * The datasource's postgres.js transaction as the `query(text, values)` the inventory
 * statements call. `unsafe` takes their `$n` parameters as bound parameters (nothing is
 * interpolated); postgres.js parses timestamptz, jsonb and integers as node-postgres does,
 * and `count` is the affected rows.
 */
function asQueryClient(sql: postgres.TransactionSql): pg.PoolClient {
  const query = async (text: string, values: unknown[] = []) => {
    const rows = await sql.unsafe(text, values as postgres.ParameterOrJSON<never>[]);
    return { rows: [...rows], rowCount: rows.count };
  };
  // The reservation statements use `query` only; nothing else of PoolClient is reached.
  return { query } as unknown as pg.PoolClient;
}

/** Claims the order for `owner` and reserves its lines: one DBOS transaction. */
const reserve = inventory.registerTransaction(
  (order: OrderPlacedData, owner: string) =>
    reserveInTransaction(asQueryClient(inventory.client), reserveInputOf(order, owner)),
  { name: 'reserve' },
);

/**
 * One workflow per delivery (kafkajs-receive's own pattern). The reservation transaction claims
 * the order for this workflow (order_claims, as onceflow's does): a duplicate delivery or a
 * fresh-ID resend is another workflow, finds the order claimed, and stops before any effect.
 */
const consumeOrder = DBOS.registerWorkflow(
  async (_topic: string, _partition: number, message: KafkaMessage): Promise<string> => {
    const order = orderOfValue(message.value?.toString() ?? '');
    const owner = DBOS.workflowID ?? `order:${order.orderId}`;
    const reserved = await reserve(order, owner);
    if (reserved.verdict !== 'owner') return reserved.verdict;
    await DBOS.runStep(() => steps.charge(order), { name: 'charge', ...retry });
    await DBOS.runStep(() => steps.email(order), { name: 'email', ...retry });
    return 'completed';
  },
  { name: 'consumeOrder' },
);

const receiver = new KafkaReceiver({
  clientId: 'bench-dbos',
  brokers: env.kafkaBrokers,
  logLevel: logLevel.WARN,
});
// kafkajs-receive's defaults (its internal queue, ordering none, batches of 250): what its
// README recommends; it has no per-consumer in-flight limit short of a custom queue.
receiver.registerConsumer(consumeOrder, env.topic, { config: { groupId: env.groupId } });

async function main(): Promise<void> {
  DBOS.setConfig({
    name: 'onceflow-bench-dbos',
    systemDatabaseUrl: process.env.DBOS_SYSTEM_DATABASE_URL,
    logLevel: 'warn',
  });
  // The datasource's own install step (DBOS's docs put it with the migrations): its schema
  // and completion table, before launch checks for them.
  await PostgresDataSource.initializeDBOSSchema(options, env.schema);
  await DBOS.launch();
  process.stdout.write('dbos app launched\n');
  const stop = () => {
    void DBOS.shutdown().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`dbos app failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
