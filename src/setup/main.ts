import { loadConfigOrExit } from '../config/load-or-exit';
import { prepareServices } from './prepare-services';

/** `npm run setup`: applies migrations and creates topics against the configured services. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const result = await prepareServices(config);
  process.stdout.write(
    `migrations applied: ${result.migrationsApplied.join(', ') || 'none pending'}\n` +
      `topics created: ${result.topicsCreated.join(', ') || 'none missing'}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`setup failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
