import { DOMAINS } from '../domains';
import { runWorker } from './run-worker';

/** `npm run worker`: a worker of every registered domain (src/domains/index.ts). */
runWorker({ domains: DOMAINS }).catch((err: unknown) => {
  process.stderr.write(`worker failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
