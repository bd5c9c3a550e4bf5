import { loadConfigOrExit } from '../config/load-or-exit';
import { reportStack } from '../../harness/stack/report';
import { startPreparedStack } from '../../harness/setup/dev-stack';
import { prepareServices } from './prepare-services';

/** `npm run setup`: applies migrations and creates topics against the configured services. */
async function prepareConfigured(): Promise<void> {
  // Migrations and topics only: no Temporal payloads, so no encryption key (compose gives
  // setup the database owner's password and nothing else).
  const config = loadConfigOrExit(process.env, { temporalPayloads: false });
  const result = await prepareServices(config);
  process.stdout.write(
    `migrations applied: ${result.migrationsApplied.join(', ') || 'none pending'}\n` +
      `topics created: ${result.topicsCreated.join(', ') || 'none missing'}\n`,
  );
}

/**
 * `npm run setup` prepares the configured services; `npm run stack` (`--stack`) starts the
 * local stack, prepares it, prints its addresses and returns, leaving it running until
 * `npm run stack:stop`.
 */
const stackMode = process.argv.slice(2).includes('--stack');
(stackMode ? startPreparedStack().then(reportStack) : prepareConfigured()).catch((err: unknown) => {
  process.stderr.write(
    stackMode
      ? `${(err as Error).message ?? String(err)}\n`
      : `setup failed: ${(err as Error).stack ?? String(err)}\n`,
  );
  process.exit(1);
});
