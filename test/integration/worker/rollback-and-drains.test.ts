import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { buildIdOf } from '../../../src/db/workflow-build-store';
import { dataConverterFor } from '../../../src/temporal/data-converter';
import { waitFor } from '../../../src/util/wait';
import { buildDrains } from '../../../src/worker/build-drains';
import type { BuildReport } from '../../../src/worker/build-report';
import type { SagaStatus } from '../../../src/workflow';
import { deploysDomain } from '../../support/domains/deploys';
import { createDeployActivities } from '../../support/domains/deploys/activities';
import { becomesCurrent, currentBuildOf, startDeploysWorker } from '../../support/deploys-worker';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../support/order-env';
import { testConfig, uniqueName } from '../../support/services';
import { temporalCli } from '../../support/temporal-cli';
import { workflowBundle } from '../../support/workflow-bundle';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * The deployment's builds over a deploy's life: an operator's rollback outlives a restart of
 * the build rolled back from, and the drains of older builds stay one per build and stop with
 * the worker.
 */
describe('rollbacks and drains of a worker deployment (real stack)', function () {
  this.timeout(240_000);
  let env: OrderEnv;
  let connection: NativeConnection;
  const config = testConfig();
  const codeOf = async (v: 'v1' | 'v2') =>
    (await workflowBundle({ domains: [deploysDomain(v)] })).code;
  before(async () => {
    env = await createOrderEnv({ inProcessWorker: false });
    await env.db.pool.query('CREATE TABLE effects (key text PRIMARY KEY, what text NOT NULL)');
    connection = await NativeConnection.connect({ address: config.temporal.address });
  });
  after(async () => {
    await connection.close();
    await env.close();
  });

  const currentOf = (deployment: string) => currentBuildOf(connection, config, deployment);
  const startRenewal = (taskQueue: string) => {
    const renewalId = uniqueName('renewal');
    return env.client.workflow.start('renewal', {
      taskQueue,
      workflowId: `RenewalDue:${renewalId}`,
      args: [eventInputOf('RenewalDue', renewalId, { renewalId })],
    });
  };

  it("keeps the operator's rollback when a worker of the build rolled back from restarts", async () => {
    const taskQueue = uniqueName('rollback-tq');
    const [b1, b2] = [buildIdOf(await codeOf('v1')), buildIdOf(await codeOf('v2'))];
    const v1 = await startDeploysWorker(env, connection, config, { v: 'v1', taskQueue });
    await becomesCurrent(connection, config, taskQueue, b1);
    const v2 = await startDeploysWorker(env, connection, config, { v: 'v2', taskQueue });
    await becomesCurrent(connection, config, taskQueue, b2);
    // B2 is broken: the operator rolls back, as docs/deploying.md says; B2's workers stay.
    await temporalCli([
      ...['worker', 'deployment', 'set-current-version', '--yes'],
      ...['--deployment-name', taskQueue, '--build-id', b1],
    ]);
    assert.equal(await currentOf(taskQueue), b1);
    let v2Again: Awaited<ReturnType<typeof startDeploysWorker>> | undefined;
    try {
      // Then a B2 process restarts (an OOM, a node drain, autoscaling).
      await v2.stop();
      const reports: BuildReport[][] = [];
      v2Again = await startDeploysWorker(env, connection, config, {
        v: 'v2',
        taskQueue,
        onBuildReport: (r) => reports.push([...r]),
      });
      // Its first report follows its decision on which build is current.
      await waitFor(() => reports.length > 0, { timeoutMs: 60_000, what: 'its first report' });
      assert.equal(await currentOf(taskQueue), b1, 'B1 stays current');
      const fresh = await startRenewal(taskQueue);
      assert.equal((await fresh.result()).outcome, 'completed');
      assert.equal(
        (await fresh.describe()).raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion
          ?.buildId,
        b1,
        'new runs start on B1',
      );
    } finally {
      await v2Again?.stop();
      await v1.stop();
    }
  });

  it('two overlapping refreshes leave one drain of a build, and stop() leaves none', async () => {
    const taskQueue = uniqueName('drains-tq');
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const v1 = await startDeploysWorker(env, connection, config, { v: 'v1', taskQueue });
    const handle: WorkflowHandle = await startRenewal(taskQueue);
    await waitFor(
      async () => (await handle.query<SagaStatus>('status')).waiting?.step === 'email',
      {
        timeoutMs: 60_000,
        what: 'charged, then waiting on the mail API',
      },
    );
    await v1.stop();
    // B2 deployed (current from now on) and stopped: B1 is an older build with an open run.
    const b2 = buildIdOf(await codeOf('v2'));
    const v2 = await startDeploysWorker(env, connection, config, { v: 'v2', taskQueue });
    await becomesCurrent(connection, config, taskQueue, b2);
    await v2.stop();
    const made: Worker[] = [];
    /** The deployment of a v2 process, whose drain workers are real workers of their build. */
    const drainsOf = (creating?: () => void) =>
      codeOf('v2').then((code) =>
        buildDrains({
          workflowService: connection.workflowService,
          namespace: config.temporal.namespace,
          deployment: taskQueue,
          buildId: b2,
          code,
          pool: env.db.pool,
          log: silent,
          createWorker: async (buildId, stored) => {
            creating?.();
            const worker = await Worker.create({
              connection,
              namespace: config.temporal.namespace,
              taskQueue,
              dataConverter: dataConverterFor(config),
              workflowBundle: { code: stored },
              activities: createDeployActivities({ pool: env.db.pool, config }),
              workerDeploymentOptions: {
                version: { deploymentName: taskQueue, buildId },
                useWorkerVersioning: true,
                defaultVersioningBehavior: 'PINNED',
              },
            });
            made.push(worker);
            return worker;
          },
        }),
      );
    try {
      const drains = await drainsOf();
      const [first, second] = await Promise.all([drains.refresh(), drains.refresh()]);
      assert.deepEqual(first, second);
      assert.equal(made.length, 1, 'one drain worker for the one older build');
      assert.equal(made[0]!.getState(), 'RUNNING');
      await drains.stop();
      assert.equal(made[0]!.getState(), 'STOPPED');

      // SIGTERM while a drain worker is being made: stop() resolves only once it is stopped.
      let entered: () => void = () => undefined;
      const creating = new Promise<void>((r) => (entered = r));
      const late = await drainsOf(() => entered());
      const refreshing = late.refresh();
      await creating;
      await late.stop();
      assert.equal(made.length, 2);
      assert.equal(made[1]!.getState(), 'STOPPED', 'no drain runs after stop()');
      await refreshing;
    } finally {
      await Promise.all(made.map((w) => (w.getState() === 'RUNNING' ? w.shutdown() : undefined)));
    }
  });
});
