/**
 * The order workload as a DBOS app: `@dbos-inc/kafkajs-receive` turns each record into a
 * workflow (its ID derived from topic, partition, group and offset: a redelivered offset runs
 * once) whose reservation is a DBOS transaction (`dbos-inventory.ts`: src/inventory's
 * reservation statements, which also claim the order so duplicates stop there, committed with
 * the datasource's completion row: it runs once per workflow) and whose charge and email are
 * checkpointed steps. SDK 4.24.16 with its matching postgres-datasource (see
 * harness/bench/peers/README.md, "Notes").
 *
 * Started by harness/bench/peers (node --import tsx); not part of the product's typecheck.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { KafkaReceiver } from '@dbos-inc/kafkajs-receive';
import { logLevel, type KafkaMessage } from 'kafkajs';
import type { OrderPlacedData } from '../../../../src/domains/orders/order-events';
import type { ReserveResult } from '../../../../src/domains/orders/inventory/inventory-service';
import { createProviderSteps, orderOfValue, readAppEnv } from '../order-steps';
import { registerReserve } from './dbos-inventory';

const env = readAppEnv();
const steps = createProviderSteps({ providersUrl: env.providersUrl });
const reserveOnce = registerReserve({
  databaseUrl: env.databaseUrl,
  schema: env.schema,
  concurrency: env.concurrency,
});
const retry = { retriesAllowed: true, maxAttempts: 10, intervalSeconds: 1 };

/**
 * The reservation transaction with the steps' retry policy. A DBOS transaction is not retried
 * on errors other than serialization failures, and its error is recorded for that call, so a
 * retry is another transaction call (its own step in the workflow, replayed in order).
 * Repeating it is safe: the order's claim makes this workflow the owner, whose repeated
 * reservation returns the first one.
 */
async function reserve(order: OrderPlacedData, owner: string): Promise<ReserveResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await reserveOnce(order, owner);
    } catch (err) {
      if (attempt >= retry.maxAttempts) throw err;
      await DBOS.sleepSeconds(retry.intervalSeconds);
    }
  }
}

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
// kafkajs-receive 4.0.2's defaults: each record's workflow is started (not awaited) in
// kafkajs's eachMessage, with no queue, so there is no in-flight limit short of a DBOS queue
// (`queueName`), which its README leaves optional.
receiver.registerConsumer(consumeOrder, env.topic, { config: { groupId: env.groupId } });

async function main(): Promise<void> {
  DBOS.setConfig({
    name: 'onceflow-bench-dbos',
    systemDatabaseUrl: process.env.DBOS_SYSTEM_DATABASE_URL,
    logLevel: 'warn',
  });
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
