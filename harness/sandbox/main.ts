import { loadConfigOrExit } from '../../src/config/load-or-exit';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { createLogger } from '../../src/logger';
import { startProviders } from './server';
import { startTracing, stopTracing } from '../../src/tracing/sdk';

/**
 * `npm run providers`: the sandbox payment and mail APIs on the port of PROVIDERS_URL, with
 * their tables in PROVIDERS_DB_SCHEMA. Faults start off; set them with PUT /admin/faults.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit(process.env, { temporalPayloads: false });
  const log = createLogger('providers', config.logLevel);
  startTracing('onceflow-providers', config.tracing);
  const schema = config.providers.dbSchema;
  const pool = createPool(config.database, { schema });
  await migrate(pool, { schema });
  const url = new URL(config.providers.url);
  const providers = await startProviders({
    pool,
    port: Number(url.port || 80),
    host: url.hostname,
    adminToken: config.providers.adminToken,
    keyTtlMs: config.providers.keyTtlMs,
    onError: (err) => log.error({ err }, 'provider request failed'),
  });
  log.info(
    { url: providers.url, schema, settingsFrom: config.origin },
    'sandbox providers listening',
  );
  const stop = (signal: NodeJS.Signals) => {
    log.info({ signal }, 'stopping sandbox providers');
    void providers
      .close()
      .then(() => pool.end())
      .then(() => stopTracing())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`providers failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
