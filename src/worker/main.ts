import { loadConfigOrExit } from '../config/load-or-exit';
import { redactConfig } from '../config';
import { createLogger } from '../logger';
import { connectClient, connectWorker } from '../temporal/connection';
import { createPool } from '../db/pool';
import { createWorker } from './create-worker';
import { installWorkerMetrics, startParkedGauge } from './worker-metrics';
import { startTracing, stopTracing } from '../tracing/sdk';

/**
 * `npm run worker`. The SDK's runtime turns SIGINT/SIGTERM into a graceful shutdown: polling
 * stops, in-flight activities finish (or time out), then run() resolves and we close the
 * pool and connection.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger('worker', config.logLevel);
  log.info({ config: redactConfig(config) }, 'starting worker');
  startTracing('onceflow-worker', config.tracing);
  // Before the first connection: the runtime (and its Prometheus exporter) is created once.
  const metricsOn = installWorkerMetrics(config.worker.metricsPort, log, config.worker.metricsHost);
  const connection = await connectWorker(config.temporal);
  const client = metricsOn ? await connectClient(config) : undefined;
  const stopGauge = client ? startParkedGauge(client, log) : undefined;
  if (metricsOn) log.info({ port: config.worker.metricsPort }, 'worker metrics on /metrics');
  const pool = createPool(config.database, { schema: config.database.schema });
  try {
    const worker = await createWorker({ connection, config, deps: { pool } });
    log.info({ taskQueue: config.temporal.taskQueue }, 'worker polling');
    await worker.run();
    log.info('worker stopped');
  } finally {
    stopGauge?.();
    await client?.connection.close();
    await pool.end();
    await connection.close();
    await stopTracing();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`worker failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
