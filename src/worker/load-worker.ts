// The worker's entry points for the public API, loaded on their first call. The worker's
// modules bring @temporalio/worker (its native core, its bundler's dependencies: about 400
// modules and 5 MB of heap); a bridge process imports the public API for defineDomain and the
// claim store, and must not carry them for its whole life.
import type { Worker } from '@temporalio/worker';
import type { CreateWorkerOptions } from './create-worker';
import type { RunWorkerOptions } from './run-worker';
import type { ReplayHistoriesOptions } from './replay-histories';

/**
 * A onceflow worker: every registered domain's workflows and activities, and the engine's own,
 * on one task queue (./create-worker.ts).
 *
 * @example
 * const worker = await createWorker({ connection, config, domains: [giftCards], deps: { pool } });
 * await worker.run();
 */
export async function createWorker(options: CreateWorkerOptions): Promise<Worker> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first call (above)
  const loaded = require('./create-worker') as typeof import('./create-worker');
  return loaded.createWorker(options);
}

/**
 * A worker process's whole life, from settings to graceful shutdown (./run-worker.ts).
 *
 * @example
 * runWorker({ domains: [giftCards] }).catch((err) => { console.error(err); process.exit(1); });
 */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first call (above)
  const loaded = require('./run-worker') as typeof import('./run-worker');
  return loaded.runWorker(options);
}

/**
 * Replays a folder of recorded histories against the workflow code as it is now
 * (./replay-histories.ts); throws naming each that does not replay.
 *
 * @example
 * await replayHistories({ domains: DOMAINS, folder: 'test/histories' });
 */
export async function replayHistories(options: ReplayHistoriesOptions): Promise<string[]> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first call (above)
  const loaded = require('./replay-histories') as typeof import('./replay-histories');
  return loaded.replayHistories(options);
}
