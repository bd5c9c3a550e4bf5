import { loadConfigOrExit } from '../config/load-or-exit';
import { redactConfig } from '../config';
import { createLogger } from '../logger';
import { connectWorker } from '../temporal/connection';
import { createPool } from '../db/pool';
import { createWorker } from './create-worker';

/**
 * `npm run worker`. The SDK's runtime turns SIGINT/SIGTERM into a graceful shutdown: polling
 * stops, in-flight activities finish (or time out), then run() resolves and we close the
 * pool and connection.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger('worker', config.logLevel);
  log.info({ config: redactConfig(config) }, 'starting worker');
  const connection = await connectWorker(config.temporal);
  const pool = createPool(config.database, { schema: config.database.schema });
  try {
    const worker = await createWorker({ connection, config, deps: { pool } });
    log.info({ taskQueue: config.temporal.taskQueue }, 'worker polling');
    await worker.run();
    log.info('worker stopped');
  } finally {
    await pool.end();
    await connection.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`worker failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
