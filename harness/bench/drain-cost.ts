/**
 * What a drain costs (docs/deploying.md, "What a drain costs"):
 *
 *   npx tsx harness/bench/drain-cost.ts [--builds 4] [--idle-s 60]
 *
 * On the running stack (`npm run stack`): `--builds` older builds of the registered domains'
 * workflows (the same bundle, a comment apart), each left with one payout waiting for its
 * approval (the long-lived run that keeps a build's drain alive); then one worker process as
 * production runs it (compiled, `npm run start:worker`'s command line) of a newer build, with
 * WORKER_MAX_DRAINS = 0, 1, 2, ... in turn, so it serves that many of them. For each: its RSS
 * once its drains run and a settling pause has passed, and its CPU over `--idle-s` seconds of
 * idling, with the load average beside them (the machine must be quiet for the figures to
 * mean anything). Cleans up its runs and its schema after.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { NativeConnection } from '@temporalio/worker';
import { loadConfigOrExit } from '../../src/config/load-or-exit';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { DOMAINS } from '../../src/domains';
import { payoutRequestedRoute } from '../../src/domains/payouts/routes';
import { connectClient } from '../../src/temporal/connection';
import { waitFor } from '../../src/util/wait';
import { awaitingStep } from '../../src/workflows/run-waits';
import type { SagaStatus } from '../../src/workflow';
import { createWorker } from '../../src/worker/create-worker';
import { prepareWorkflowBundle } from '../../src/worker/workflow-bundle';
import { startComponent, stopComponent } from '../pipeline/components';
import { buildProduction, productionArgs } from '../pipeline/production';
import { pickAnyPort } from '../stack/ports';
import { REPO_ROOT } from '../stack/paths';
import { cpuSeconds } from './proc-cpu';

const { values } = parseArgs({
  options: {
    builds: { type: 'string', default: '4' },
    'idle-s': { type: 'string', default: '60' },
  },
});
const BUILDS = Number(values.builds);
const IDLE_MS = Number(values['idle-s']) * 1000;
/** After its drains run: the bundles' first compilations and the pollers' first rounds pass. */
const SETTLE_MS = 30_000;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const run = `drain_cost_${Date.now().toString(36)}`;
  const taskQueue = `${run}_tq`;
  const pool = createPool(config.database, { schema: run });
  await migrate(pool, { schema: run });
  const client = await connectClient(config);
  const connection = await NativeConnection.connect({ address: config.temporal.address });
  // Nothing listens there: no payout gets past its approval anyway.
  const providersUrl = `http://127.0.0.1:${await pickAnyPort(new Set())}`;
  const base = readFileSync((await prepareWorkflowBundle({ domains: DOMAINS })).codePath, 'utf8');
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const payouts: string[] = [];
  try {
    for (let i = 1; i <= BUILDS; i++) {
      const worker = await createWorker({
        connection,
        config: { ...config, worker: { ...config.worker, maxDrains: 0 } },
        domains: DOMAINS,
        deps: { pool, providers: { url: providersUrl } },
        taskQueue,
        workflowBundle: { code: `${base}\n// drain-cost build ${i}` },
        log: silent,
      });
      const running = worker.run();
      const payoutId = `${run}_p${i}`;
      const handle = await client.workflow.start(payoutRequestedRoute.workflowType, {
        taskQueue,
        workflowId: `PayoutRequested:${payoutId}`,
        args: [
          {
            data: {
              ...{ payoutId, beneficiaryId: 'ben_1', email: 'b@example.com' },
              ...{ amountMinor: 5_000_000, currency: 'EUR' },
            },
            event: {
              ...{ eventId: `${payoutId}-e`, eventType: 'PayoutRequested', identity: payoutId },
              ...{ aggregateId: payoutId, fingerprint: 'drain-cost' },
              source: { topic: run, partition: 0, offset: String(i) },
            },
          },
        ],
      });
      payouts.push(handle.workflowId);
      await waitFor(
        async () => (await handle.query<SagaStatus>('status')).step === awaitingStep('approval'),
        { timeoutMs: 60_000, what: `payout ${i} waiting for its approval` },
      );
      worker.shutdown();
      await running;
    }
    buildProduction();
    const logs = join(REPO_ROOT, 'artifacts', run);
    process.stdout.write(
      `drain cost, ${BUILDS} older builds with a payout waiting each; idle ${IDLE_MS / 1000} s, settle ${SETTLE_MS / 1000} s\n` +
        'drains  RSS MiB  CPU s idle  CPU % idle  load average (1, 5 min)\n',
    );
    for (const drains of [0, 1, 2, BUILDS].filter((d, i, all) => all.indexOf(d) === i)) {
      const name = `worker-${drains}`;
      const component = startComponent(
        name,
        productionArgs('worker'),
        {
          ...{ TEMPORAL_TASK_QUEUE: taskQueue, DATABASE_SCHEMA: run, PROVIDERS_URL: providersUrl },
          ...{ WORKER_MAX_DRAINS: String(drains), WORKER_METRICS_PORT: '0', LOG_LEVEL: 'info' },
        },
        logs,
      );
      const pid = component.child.pid!;
      const served = () =>
        readFileSync(component.logFile, 'utf8').split('serving a build of the deployment').length -
        1;
      await waitFor(() => readFileSync(component.logFile, 'utf8').includes('worker polling'), {
        timeoutMs: 180_000,
        what: `${name} polling`,
      });
      await waitFor(() => served() >= drains, { timeoutMs: 180_000, what: `${name}'s drains` });
      await pause(SETTLE_MS);
      const before = cpuSeconds({ worker: pid }).worker!;
      await pause(IDLE_MS);
      const cpu = cpuSeconds({ worker: pid }).worker! - before;
      const rss = rssMiB(pid);
      const [l1, l5] = loadavg();
      process.stdout.write(
        `${String(drains).padStart(6)}  ${rss.toFixed(0).padStart(7)}  ${cpu.toFixed(2).padStart(10)}  ${((cpu * 100000) / IDLE_MS).toFixed(2).padStart(10)}  ${l1!.toFixed(2)}, ${l5!.toFixed(2)}\n`,
      );
      await stopComponent(component);
    }
  } finally {
    for (const id of payouts)
      await client.workflow
        .getHandle(id)
        .terminate('drain-cost done')
        .catch(() => undefined);
    await connection.close();
    await client.connection.close();
    await pool.query(`DROP SCHEMA "${run}" CASCADE`).catch(() => undefined);
    await pool.end();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`drain-cost failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
