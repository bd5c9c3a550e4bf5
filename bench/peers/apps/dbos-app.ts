/**
 * The order workload as a DBOS app: `@dbos-inc/kafkajs-receive` turns each record into a
 * workflow (its ID derived from topic, partition, group and offset: a redelivered offset runs
 * once) that runs the three effects as checkpointed steps; the reservation is one Postgres
 * transaction (src/inventory) that also claims the order, so duplicates stop there. It runs
 * as a step, idempotent by its key, not as a DBOS transaction: no published DBOS datasource
 * works with this SDK (see bench/peers/README.md, "Notes").
 *
 * Started by bench/peers (node --import tsx); not part of the product's typecheck.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { KafkaReceiver } from '@dbos-inc/kafkajs-receive';
import { logLevel, type KafkaMessage } from 'kafkajs';
import { createPeerApp, orderOfValue } from '../order-steps';

const { env, pool, steps } = createPeerApp('dbos');
const retry = { retriesAllowed: true, maxAttempts: 10, intervalSeconds: 1 };

/**
 * One workflow per delivery (kafkajs-receive's own pattern). The reservation transaction claims
 * the order for this workflow (order_claims, as onceflow's does): a duplicate delivery or a
 * fresh-ID resend is another workflow, finds the order claimed, and stops before any effect.
 */
const consumeOrder = DBOS.registerWorkflow(
  async (_topic: string, _partition: number, message: KafkaMessage): Promise<string> => {
    const order = orderOfValue(message.value?.toString() ?? '');
    const owner = DBOS.workflowID ?? `order:${order.orderId}`;
    const reserved = await DBOS.runStep(() => steps.reserve(order, owner), {
      name: 'reserve',
      ...retry,
    });
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
  await DBOS.launch();
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
