import { DOMAINS } from '../domains';
import { runBridge } from './run-bridge';

/**
 * `npm run bridge`: the bridge of every registered domain (src/domains/index.ts).
 * SIGTERM/SIGINT: stop fetching, finish in-flight starts, commit, disconnect, exit 0.
 */
runBridge({ domains: DOMAINS }).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bridge failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
