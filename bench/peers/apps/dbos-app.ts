/**
 * The order workload as a DBOS app: `@dbos-inc/kafkajs-receive` turns each record into a
 * consumer workflow (its ID derived from topic, partition, group and offset), which starts the
 * order's workflow under the ID `order:<orderId>`: DBOS runs a workflow ID once, so duplicate
 * deliveries and fresh-ID resends of an order are absorbed there. The order workflow runs the
 * three effects as checkpointed steps; the reservation is one Postgres transaction (src/inventory),
 * idempotent by its key, run as a step (@dbos-inc's node-postgres datasource package, which would
 * make it a DBOS transaction, is not on the registry this machine reaches).
 *
 * Started by bench/peers (node --import tsx); not part of the product's typecheck.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { KafkaReceiver } from '@dbos-inc/kafkajs-receive';
import { logLevel, type KafkaMessage } from 'kafkajs';
import pg from 'pg';
import type { OrderPlacedData } from '../../../src/events/order-events';
import { createOrderSteps, orderOfValue, readAppEnv } from '../order-steps';

const env = readAppEnv();
const pool = new pg.Pool({
  connectionString: env.databaseUrl,
  max: env.concurrency,
  options: `-c search_path=${env.schema}`,
});
pool.on('error', () => undefined);
const steps = createOrderSteps({ pool, providersUrl: env.providersUrl, system: 'dbos' });
const retry = { retriesAllowed: true, maxAttempts: 10, intervalSeconds: 1 };
const QUEUE = 'bench_orders';

const processOrder = DBOS.registerWorkflow(
  async (order: OrderPlacedData): Promise<string> => {
    const reserved = await DBOS.runStep(() => steps.reserve(order), { name: 'reserve', ...retry });
    if (reserved.verdict !== 'owner') return reserved.verdict;
    await DBOS.runStep(() => steps.charge(order), { name: 'charge', ...retry });
    await DBOS.runStep(() => steps.email(order), { name: 'email', ...retry });
    return 'completed';
  },
  { name: 'processOrder' },
);

const consumeOrder = DBOS.registerWorkflow(
  async (_topic: string, _partition: number, message: KafkaMessage): Promise<void> => {
    const order = orderOfValue(message.value?.toString() ?? '');
    // Same ID for every delivery of the order: the first starts it, the others get its handle.
    const handle = await DBOS.startWorkflow(processOrder, { workflowID: `order:${order.orderId}` })(
      order,
    );
    await handle.getResult();
  },
  { name: 'consumeOrder' },
);

const receiver = new KafkaReceiver({
  clientId: 'bench-dbos',
  brokers: env.kafkaBrokers,
  logLevel: logLevel.WARN,
});
receiver.registerConsumer(consumeOrder, env.topic, {
  queueName: QUEUE,
  config: { groupId: env.groupId },
});

async function main(): Promise<void> {
  DBOS.setConfig({
    name: 'onceflow-bench-dbos',
    systemDatabaseUrl: process.env.DBOS_SYSTEM_DATABASE_URL,
    logLevel: 'warn',
  });
  await DBOS.launch();
  // The consumer's queue: the same number of orders in flight as onceflow's bridge starts.
  await DBOS.registerQueue(QUEUE, { workerConcurrency: env.concurrency });
  process.stdout.write('dbos app launched\n');
  const stop = () => {
    void DBOS.shutdown()
      .then(() => pool.end())
      .then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`dbos app failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
