import { startTracing, stopTracing } from '../tracing/sdk';
import { redactConfig } from '../config';
import { loadConfigOrExit } from '../config/load-or-exit';
import type { Domain } from '../engine/define-domain';
import { createLogger } from '../logger';
import { connectClient } from '../temporal/connection';
import { connectWorker } from './connect-worker';
import { createPool } from '../db/pool';
import { createWorker } from './create-worker';
import { checkFairness } from './fairness-check';
import {
  buildGauge,
  installRuntimeWithoutMetrics,
  installWorkerMetrics,
  startParkedGauge,
} from './worker-metrics';

/** Options of runWorker. */
export interface RunWorkerOptions {
  /**
   * The domains it runs.
   * @example domains: [giftCards]
   */
  domains: readonly Domain[];
}

/**
 * A worker process's whole life: settings from the environment (or the running local stack),
 * metrics, the pool, the worker until SIGINT/SIGTERM, then every connection closed. The SDK's
 * runtime turns those signals into a graceful shutdown: polling stops, in-flight activities
 * finish (or time out), then it returns. A bad setting exits 78 naming it.
 *
 * @example
 * runWorker({ domains: [giftCards] }).catch((err) => { console.error(err); process.exit(1); });
 */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger('worker', config.logLevel);
  log.info({ config: redactConfig(config) }, 'starting worker');
  startTracing('onceflow-worker', config.tracing);
  // Before the first connection: the runtime (and its Prometheus exporter) is created once.
  let metricsOn = installWorkerMetrics(config.worker.metricsPort, log, config.worker.metricsHost);
  const connection = await connectWorker(config.temporal, {
    onWait: (err) => log.warn({ err: err.message }, 'Temporal is not serving yet; waiting'),
    onMetricsPortTaken: (err) => {
      metricsOn = false;
      installRuntimeWithoutMetrics();
      log.warn(
        { err: err.message, port: config.worker.metricsPort },
        'worker metrics not exported',
      );
    },
  });
  const client = metricsOn ? await connectClient(config) : undefined;
  const stopGauge = client ? startParkedGauge(client, log) : undefined;
  if (metricsOn) log.info({ port: config.worker.metricsPort }, 'worker metrics on /metrics');
  const pool = createPool(config.database, { schema: config.database.schema });
  try {
    const worker = await createWorker({
      connection,
      config,
      domains: options.domains,
      deps: { pool },
      log,
      ...(metricsOn ? { onBuildReport: buildGauge() } : {}),
    });
    log.info(
      { taskQueue: config.temporal.taskQueue, domains: options.domains.map((d) => d.name) },
      'worker polling',
    );
    // Once per process: whether Temporal holds the tenants' shares (a warning naming the fix
    // when it does not; the worker runs either way).
    void checkFairness(connection.workflowService, {
      namespace: config.temporal.namespace,
      taskQueue: config.temporal.taskQueue,
      withDeadline: (deadline, call) => connection.withDeadline(deadline, call),
      log,
    });
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
