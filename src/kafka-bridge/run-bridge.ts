import { startTracing, stopTracing } from '../tracing/sdk';
import { Connection } from '@temporalio/client';
import { ConfigError, redactConfig } from '../config';
import { loadConfigOrExit } from '../config/load-or-exit';
import type { Domain } from '../engine/define-domain';
import { routesOfDomains } from '../engine/registry';
import { withExtraRoutes, type RouteTable } from '../events/routes';
import { createLogger } from '../logger';
import { createPool } from '../db/pool';
import { migrate } from '../db/migrate';
import { clientConnectionOptions, createClient } from '../temporal/connection';
import { startBridge } from './bridge';
import { bridgeGroupOf } from './backfill';
import { checkCodecs, CodecSelfTestError } from '../kafka/codecs';
import { createKafka } from '../kafka/kafka-client';
import { createBridgeMetrics, serveMetrics } from './metrics';

/** Options of runBridge. */
export interface RunBridgeOptions {
  /**
   * The domains whose events it routes (plus BRIDGE_EXTRA_ROUTES).
   * @example domains: [giftCards]
   */
  domains: readonly Domain[];
}

/**
 * A bridge process's whole life: settings (a bad one exits 78), the codecs' self-test (70),
 * migrations, the consumer until SIGTERM/SIGINT; then it stops fetching, finishes in-flight
 * starts, commits and disconnects.
 *
 * @example
 * runBridge({ domains: [giftCards] }).catch((err) => { console.error(err); process.exit(1); });
 */
export async function runBridge(options: RunBridgeOptions): Promise<void> {
  const config = loadConfigOrExit();
  let routes: RouteTable;
  try {
    routes = withExtraRoutes(routesOfDomains(options.domains), config.bridge.extraRoutes);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  const log = createLogger('bridge', config.logLevel);
  // A codec whose native part is missing would otherwise show only on the first batch that
  // uses it, as a consumer stuck restarting into that batch.
  try {
    await checkCodecs();
  } catch (err) {
    if (!(err instanceof CodecSelfTestError)) throw err;
    process.stderr.write(`bridge cannot start: ${err.message}\n`);
    process.exit(70);
  }
  log.info({ config: redactConfig(config) }, 'starting bridge');
  // Before the client: its interceptors follow whether tracing is on.
  startTracing('onceflow-bridge', config.tracing);

  // Lazy: the bridge starts even while Temporal is down and retries its starts until it returns.
  const connection = Connection.lazy(clientConnectionOptions(config.temporal));
  const client = createClient(connection, config);
  const pool = createPool(config.database, {
    onIdleError: (err) => log.warn({ err: err.message }, 'idle Postgres connection lost'),
  });
  const metrics = createBridgeMetrics();
  const server = await serveMetrics(
    metrics.registry,
    config.bridge.metricsPort,
    config.bridge.metricsHost,
  );
  try {
    await migrate(pool, { schema: config.database.schema });
    const bridge = await startBridge({
      config,
      kafka: createKafka(config.kafka, 'bridge', log),
      client,
      pool,
      log,
      routes,
      metrics,
      ledgerSchema: config.database.schema,
    });
    const address = server.address();
    log.info(
      {
        topics: bridge.topics,
        groupId: bridgeGroupOf(config),
        mode: config.bridge.mode,
        metricsPort: typeof address === 'object' ? address?.port : undefined,
      },
      'bridge consuming',
    );
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.once('SIGINT', () => resolve('SIGINT'));
    });
    log.info({ signal }, 'stopping bridge');
    await bridge.stop();
    log.info('bridge stopped');
  } finally {
    server.close();
    await pool.end();
    await connection.close();
    await stopTracing();
  }
}
