import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { pickAnyPort } from '../../../harness/stack/ports';
import type { Config } from '../../../src/config';
import { OpsContext } from '../../../src/ops/context';
import { showEntity } from '../../../src/ops/entity-show';
import { listDeploymentBuilds } from '../../../src/ops/builds-commands';
import { opsDomainOf } from '../../../src/ops/ops-domain';
import { waitFor } from '../../../src/util/wait';
import type { BuildReport } from '../../../src/worker/build-report';
import type { CommandResult } from '../../../src/ops/output';
import type { RunStall } from '../../../src/ops/run-progress';
import { retryStepSignal, type SagaStatus } from '../../../src/workflow';
import { deploysDomain } from '../../support/domains/deploys';
import { startDeploysWorker } from '../../support/deploys-worker';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../support/order-env';
import { asSuperuserWithoutTriggers } from '../../support/pg-roles';
import { testConfig, uniqueName } from '../../support/services';
import { logChildOutput } from '../../support/test-log';
import { workflowBundle } from '../../support/workflow-bundle';

/** What `show` found stopping the run, if anything. */
const stalledOf = (shown: CommandResult) => (shown.json as { stalled?: RunStall }).stalled;

/**
 * A run that cannot go on on the code it meets writes nothing itself (its workflow task never
 * completes), so its Step keeps its last word. Renewals charged and waiting on a failing mail
 * API meet (1) a deploy after which no worker can run their build, and (2) an unversioned
 * deploy of changed code. Each time `show` says why and what to do, and the remedy the docs
 * give finishes them with each effect once.
 */
describe('a run that cannot go on on its code says so where operators look (real stack)', function () {
  this.timeout(300_000);
  let env: OrderEnv;
  let connection: NativeConnection;
  let ops: OpsContext;
  const config = testConfig();
  const renewals = opsDomainOf(deploysDomain('v1'));
  before(async () => {
    env = await createOrderEnv({ inProcessWorker: false });
    await env.db.pool.query('CREATE TABLE effects (key text PRIMARY KEY, what text NOT NULL)');
    connection = await NativeConnection.connect({ address: config.temporal.address });
    ops = new OpsContext({ ...config, database: { ...config.database, schema: env.db.schema } });
  });
  after(async () => {
    await ops.close();
    await connection.close();
    await env.close();
  });

  const start = (taskQueue: string, renewalId: string) =>
    env.client.workflow.start('renewal', {
      taskQueue,
      workflowId: `RenewalDue:${renewalId}`,
      args: [eventInputOf('RenewalDue', renewalId, { renewalId })],
    });
  const waitCharged = (h: WorkflowHandle) =>
    waitFor(async () => (await h.query<SagaStatus>('status')).waiting?.step === 'email', {
      timeoutMs: 60_000,
      what: `${h.workflowId} charged, then waiting on the mail API`,
    });
  const retry = (h: WorkflowHandle) =>
    h.signal(retryStepSignal, { by: 'test', reason: 'mail API back' });
  const assertEffectsOnce = async (renewalId: string) => {
    const ledger = await env.ledger(renewalId);
    assert.deepEqual(
      [ledger.charges.length, ledger.emails.map((e) => e.idempotencyKey)],
      [1, [`renewal:${renewalId}:email`]],
      `${renewalId}: one charge, one mail under the key of the code it started on`,
    );
  };

  it('pinned to a build whose code nobody stored: show, builds list and the report say so; that build started again finishes its runs', async () => {
    const taskQueue = uniqueName('unserved-tq');
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const v1 = await startDeploysWorker(env, connection, config, { v: 'v1', taskQueue });
    const ids = [uniqueName('renewal'), uniqueName('renewal')];
    const handles = await Promise.all(ids.map((id) => start(taskQueue, id)));
    await Promise.all(handles.map(waitCharged));
    const pinnedTo = (await handles[0]!.describe()).raw.workflowExecutionInfo?.versioningInfo
      ?.deploymentVersion?.buildId;
    assert.ok(pinnedTo);
    await v1.stop();
    // As if its workers had run before workflow_builds existed, or on another database.
    await asSuperuserWithoutTriggers(
      config.database,
      env.db.schema,
      'DELETE FROM workflow_builds WHERE build_id = $1',
      [pinnedTo],
    );

    const reports: BuildReport[][] = [];
    const v2 = await startDeploysWorker(env, connection, config, {
      v: 'v2',
      taskQueue,
      onBuildReport: (r) => reports.push([...r]),
    });
    let v1Again: Awaited<ReturnType<typeof startDeploysWorker>> | undefined;
    try {
      await waitFor(
        () =>
          reports.some((r) => r.some((b) => b.buildId === pinnedTo && b.servedBy === 'missing')),
        { timeoutMs: 60_000, what: 'the new worker to report the old build unserved' },
      );
      const shown = await showEntity(ops, renewals, [ids[0]!]);
      assert.equal(stalledOf(shown)?.kind, 'build-unserved', shown.human);
      assert.match(shown.human, new RegExp(`cannot go on: +pinned to build ${pinnedTo}`));
      const builds = await listDeploymentBuilds(ops, ['--deployment', taskQueue]);
      assert.match(builds.human, new RegExp(`${pinnedTo}.*NOBODY CAN RUN ITS RUNS`));

      // The remedy docs/deploying.md gives: a worker of that build, started again.
      await env.setFaults({ endpoints: { emails: {} } });
      v1Again = await startDeploysWorker(env, connection, config, { v: 'v1', taskQueue });
      await Promise.all(handles.map(retry));
      const results = await Promise.all(handles.map((h) => h.result()));
      assert.ok(results.every((r) => r.outcome === 'completed'));
      for (const id of ids) await assertEffectsOnce(id);
      // An older build that came back serves its runs; new runs stay on the current build.
      const fresh = uniqueName('renewal');
      const freshHandle = await start(taskQueue, fresh);
      await freshHandle.result();
      assert.deepEqual(
        (await env.ledger(fresh)).emails.map((e) => e.idempotencyKey),
        [`renewal:${fresh}:notify`],
        'a run started after the old build came back runs the current code',
      );
      const after = await showEntity(ops, renewals, [ids[0]!]);
      assert.equal(stalledOf(after), undefined);
    } finally {
      await v1Again?.stop();
      await v2.stop();
    }
  });

  it('unversioned, changed code meets runs in flight: show names the nondeterminism, the SDK counts it, the old code finishes them', async () => {
    const taskQueue = uniqueName('nde-tq');
    const unversioned: Config = { ...config, worker: { ...config.worker, versioning: 'off' } };
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const v1 = await startDeploysWorker(env, connection, unversioned, { v: 'v1', taskQueue });
    const id = uniqueName('renewal');
    const handle = await start(taskQueue, id);
    await waitCharged(handle);
    await v1.stop();

    const v2 = await spawnMeteredWorker('v2', taskQueue);
    try {
      await retry(handle);
      const shown = await waitFor(
        async () => {
          const s = await showEntity(ops, renewals, [id]);
          return stalledOf(s)?.kind === 'task-failing' ? s : undefined;
        },
        { timeoutMs: 60_000, what: 'the run to fail its workflow task on the changed code' },
      );
      assert.equal(
        (stalledOf(shown) as { cause?: string } | undefined)?.cause,
        'non-deterministic-error',
      );
      assert.match(
        shown.human,
        /cannot go on: +its workflow task fails on the code of its task queue/,
      );
      // What OnceflowRunsCannotReplay reads (monitoring/prometheus/alerts.yml).
      const metrics = await waitFor(
        async () => {
          const text = await (await fetch(`http://127.0.0.1:${v2.metricsPort}/metrics`)).text();
          return /temporal_workflow_task_execution_failed\{[^}]*failure_reason="NonDeterminismError"[^}]*workflow_type="renewal"[^}]*\} [1-9]/.test(
            text.replace(
              /\{([^}]*)\}/g,
              (_, labels: string) => `{${labels.split(',').sort().join(',')}}`,
            ),
          )
            ? text
            : undefined;
        },
        { timeoutMs: 30_000, what: 'the SDK to count the nondeterminism' },
      );
      assert.ok(metrics);
    } finally {
      await v2.stop();
    }
    // The remedy: the code the run started on.
    await env.setFaults({ endpoints: { emails: {} } });
    const v1Again = await startDeploysWorker(env, connection, unversioned, { v: 'v1', taskQueue });
    try {
      await retry(handle);
      assert.equal((await handle.result()).outcome, 'completed');
      await assertEffectsOnce(id);
    } finally {
      await v1Again.stop();
    }
  });

  /** A worker process of version `v` with the runtime's Prometheus exporter, unversioned. */
  async function spawnMeteredWorker(v: 'v1' | 'v2', taskQueue: string) {
    const bundlePath = join(tmpdir(), `${uniqueName('deploys-bundle')}.js`);
    writeFileSync(bundlePath, (await workflowBundle({ domains: [deploysDomain(v)] })).code);
    const metricsPort = await pickAnyPort(new Set());
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', resolve(__dirname, '../../support/deploys-worker-process.ts')],
      {
        env: {
          ...process.env,
          WORKER_VERSIONING: 'off',
          WORKER_METRICS_PORT: String(metricsPort),
          PROVIDERS_URL: env.providers.url,
          DEPLOYS_TEST_VERSION: v,
          DEPLOYS_TEST_QUEUE: taskQueue,
          DEPLOYS_TEST_SCHEMA: env.db.schema,
          DEPLOYS_TEST_BUNDLE: bundlePath,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    logChildOutput(child, `worker-${v}`);
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    await waitFor(() => out.includes('worker-ready') || child.exitCode !== null, {
      timeoutMs: 60_000,
      what: 'the worker process to poll',
    });
    if (child.exitCode !== null) throw new Error(`worker process exited early:\n${out}`);
    return {
      metricsPort,
      stop: async () => {
        if (child.exitCode === null) child.kill('SIGTERM');
        await exited;
        rmSync(bundlePath, { force: true });
      },
    };
  }
});
