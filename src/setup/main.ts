import { loadConfigOrExit } from '../config/load-or-exit';
import { DOMAINS } from '../domains';
import { prepareServices } from './prepare-services';

/**
 * `npm run setup`: applies migrations and creates topics against the configured services (in
 * production compose runs it once before the worker and the bridge start). The local stack's
 * `npm run stack` does the same after starting it (harness/setup/main.ts).
 */
async function main(): Promise<void> {
  // Migrations and topics only: no Temporal payloads, so no encryption key (compose gives
  // setup the database owner's password and nothing else).
  const config = loadConfigOrExit(process.env, { temporalPayloads: false });
  const result = await prepareServices(config, DOMAINS);
  process.stdout.write(
    `migrations applied: ${result.migrationsApplied.join(', ') || 'none pending'}\n` +
      `topics created: ${result.topicsCreated.join(', ') || 'none missing'}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`setup failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
