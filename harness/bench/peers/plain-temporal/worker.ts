/**
 * The plain Temporal system's worker (bench:peers): the sample's worker.ts, with the three
 * activities bound to the run's inventory pool and the providers.
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { createPeerApp } from '../order-steps';
import { createPlainActivities } from './activities';
import { plainSettings } from './settings';

async function main(): Promise<void> {
  const { env, pool } = createPeerApp('plain-temporal');
  const settings = plainSettings();
  const connection = await NativeConnection.connect({ address: settings.temporalAddress });
  try {
    const worker = await Worker.create({
      connection,
      taskQueue: settings.taskQueue,
      workflowsPath: require.resolve('./workflows'),
      activities: createPlainActivities({ pool, providersUrl: env.providersUrl }),
    });
    process.stdout.write('plain worker polling\n');
    await worker.run();
  } finally {
    await connection.close();
    await pool.end();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`plain worker failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
