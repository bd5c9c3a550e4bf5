/**
 * The plain Temporal system's consumer (bench:peers): a kafkajs consumer that starts one
 * workflow per record with the record's event ID as the workflow ID, as a sample would, its
 * partitions consumed at once. A
 * duplicate delivery finds its workflow started (REJECT_DUPLICATE keeps that true after the
 * run closed, for the namespace's retention) and is skipped; the offset is committed after the
 * start (kafkajs commits what eachMessage returned from).
 */
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { Kafka, logLevel } from 'kafkajs';
import { orderOfValue, readAppEnv } from '../order-steps';
import { plainSettings } from './settings';
import type { plainOrder } from './workflows';

async function main(): Promise<void> {
  const env = readAppEnv();
  const settings = plainSettings();
  const connection = await Connection.connect({ address: settings.temporalAddress });
  const client = new Client({ connection });
  const kafka = new Kafka({
    clientId: 'plain-temporal',
    brokers: env.kafkaBrokers,
    logLevel: logLevel.ERROR,
  });
  const consumer = kafka.consumer({ groupId: env.groupId });
  await consumer.connect();
  await consumer.subscribe({ topic: env.topic, fromBeginning: true });
  const stop = () => void consumer.disconnect().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await consumer.run({
    // Every partition at once (kafkajs's default is one): the start rate must not be what
    // this system is measured by, as onceflow's bridge starts 32 workflows at a time.
    partitionsConsumedConcurrently: env.concurrency,
    eachMessage: async ({ message }) => {
      const eventId = message.headers?.['event-id']?.toString();
      if (!eventId || !message.value) return;
      const order = orderOfValue(message.value.toString());
      try {
        await client.workflow.start<typeof plainOrder>('plainOrder', {
          taskQueue: settings.taskQueue,
          workflowId: eventId,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [order],
        });
      } catch (err) {
        if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      }
    },
  });
  process.stdout.write('plain consumer running\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`plain consumer failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
