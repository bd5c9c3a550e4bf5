/**
 * A worker process of the deploy test domain with the runtime's Prometheus exporter, for the
 * tests that read what the SDK counts (`node --import tsx deploys-worker-process.ts`). Reads
 * the usual settings (TEMPORAL_ADDRESS, DATABASE_URL, PROVIDERS_URL, WORKER_VERSIONING,
 * WORKER_METRICS_PORT) plus DEPLOYS_TEST_VERSION (v1 or v2), DEPLOYS_TEST_QUEUE and
 * DEPLOYS_TEST_SCHEMA, and DEPLOYS_TEST_BUNDLE (that version's bundle, built by the test); prints `worker-ready` once polling; stops on SIGTERM.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import { createPool } from '../../src/db/pool';
import { createWorker } from '../../src/worker/create-worker';
import { metricsBindAddress } from '../../src/worker/worker-metrics';
import { deploysDomain } from './domains/deploys';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: {
      metrics: {
        prometheus: { bindAddress: metricsBindAddress('127.0.0.1', config.worker.metricsPort) },
      },
    },
  });
  const pool = createPool(config.database, { schema: process.env.DEPLOYS_TEST_SCHEMA });
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  try {
    const domain = deploysDomain(process.env.DEPLOYS_TEST_VERSION === 'v2' ? 'v2' : 'v1');
    const worker = await createWorker({
      domains: [domain],
      connection,
      config,
      deps: { pool },
      taskQueue: process.env.DEPLOYS_TEST_QUEUE,
      workflowBundle: { codePath: process.env.DEPLOYS_TEST_BUNDLE! },
    });
    const running = worker.run();
    process.stdout.write('worker-ready\n');
    await running;
  } finally {
    await pool.end();
    await connection.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`deploys worker failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
