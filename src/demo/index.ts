import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfigOrExit } from '../config/load-or-exit';
import { startPreparedStack } from '../stack/cli';
import { connectClient, connectWorker } from '../temporal/connection';
import { workflowUrl } from '../temporal/ui-links';
import { createPool } from '../db/pool';
import { createWorker } from '../worker/create-worker';
import { smokeCheck } from '../workflows';

/**
 * `npm run demo`: the whole pipeline on the embedded local stack. Installs and starts the
 * stack when needed, runs onceflow against it and ends with a summary and the Web UI address.
 * The stack stays up afterwards so the runs can be inspected; `npm run stack:stop` stops it
 * (`npm run demo -- --stop` stops it at the end instead).
 */
async function main(): Promise<void> {
  const stopAtEnd = process.argv.includes('--stop');
  const started = Date.now();
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const stack = await startPreparedStack();
  const config = loadConfigOrExit();
  const pool = createPool(config.database);
  const connection = await connectWorker(config.temporal);
  const client = await connectClient(config.temporal);
  try {
    const worker = await createWorker({ connection, config, deps: { pool } });
    const workflowId = `demo-smoke-check-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    const handle = await client.workflow.start(smokeCheck, {
      taskQueue: config.temporal.taskQueue,
      workflowId,
      args: [{}],
    });
    const result = await worker.runUntil(handle.result());
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const versions = Object.entries(stack.state.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    process.stdout.write(
      [
        '',
        'onceflow demo summary',
        `  stack            ${versions}`,
        `  smoke workflow   ${workflowId}: completed`,
        `  worker → Postgres ${result.postgresVersion}, schema at migration ${result.migrationVersion}`,
        `  topics           ${config.kafka.topics.map((t) => `${t} + ${t}.dlq`).join(', ')} (${config.kafka.partitions} partitions)`,
        `  took             ${seconds} s`,
        `  run              ${workflowUrl(config.temporal.uiUrl, config.temporal.namespace, workflowId, handle.firstExecutionRunId)}`,
        stopAtEnd
          ? '  stack            stopped'
          : '  stack            still running; `npm run stack:stop` stops it',
        '',
        `Temporal Web UI: ${config.temporal.uiUrl}`,
        '',
      ].join('\n'),
    );
  } finally {
    await connection.close();
    await client.connection.close();
    await pool.end();
    if (stopAtEnd) await stack.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`demo failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
