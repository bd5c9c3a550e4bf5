import { UsageError } from '../../src/util/usage-error';
import { reportStack } from './report';
import { startStack, stopStack } from './stack';

/**
 * `tsx harness/stack/main.ts start|stop`: starts the local services only (Temporal, Kafka,
 * PostgreSQL, codec server) and returns while they keep running, or stops them. Preparing them for onceflow (migrations, topics) is the
 * caller's job: `npm run stack` runs src/setup/main.ts --stack, which does both.
 */
async function main(): Promise<void> {
  const command = process.argv[2] ?? 'start';
  if (command === 'start') return reportStack(await startStack());
  if (command === 'stop') {
    const state = await stopStack();
    process.stdout.write(state ? 'stack stopped\n' : 'no stack was running\n');
    return;
  }
  throw new UsageError(`unknown command "${command}" (use start or stop)`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message ?? String(err)}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
