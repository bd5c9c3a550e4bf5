/**
 * A real worker process for crash tests: `node --import tsx order-worker-process.ts`. It reads
 * the usual settings (TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE, DATABASE_URL, PROVIDERS_URL) plus
 * ORDER_TEST_SCHEMA (its Postgres schema) and ORDER_TEST_BUNDLE (a prebuilt workflow bundle),
 * prints `worker-ready` once polling, and is meant to be SIGKILLed. With
 * ORDER_TEST_HOLD_PUBLISH=1 a publishing step sends its record, prints `published`, and never
 * completes: the test kills the worker between the send and the activity's completion.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import { createPool } from '../../src/db/pool';
import { createWorker } from '../../src/worker/create-worker';
import { DOMAINS } from '../../src/domains';
import { createEventProducer, type EventProducer } from '../../src/activities/kafka';
import type { Config } from '../../src/config';

/** A producer whose sends reach Kafka and then never return. */
function holdingProducer(config: Config): EventProducer {
  const real = createEventProducer(config.kafka);
  return {
    close: real.close,
    producer: async () => {
      const p = await real.producer();
      return new Proxy(p, {
        get: (target, prop, receiver) =>
          prop === 'send'
            ? async (...args: Parameters<typeof p.send>) => {
                await target.send(...args);
                process.stdout.write('published\n');
                return new Promise<never>(() => undefined);
              }
            : Reflect.get(target, prop, receiver),
      });
    },
  };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const config = loadConfig(process.env);
  const pool = createPool(config.database, { schema: process.env.ORDER_TEST_SCHEMA });
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  const worker = await createWorker({
    domains: DOMAINS,
    connection,
    config,
    deps: {
      pool,
      ...(process.env.ORDER_TEST_HOLD_PUBLISH === '1' ? { producer: holdingProducer(config) } : {}),
    },
    workflowBundle: { codePath: process.env.ORDER_TEST_BUNDLE! },
  });
  const running = worker.run();
  process.stdout.write('worker-ready\n');
  await running;
  await pool.end();
  await connection.close();
}

main().catch((err: unknown) => {
  process.stderr.write(`order worker failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
