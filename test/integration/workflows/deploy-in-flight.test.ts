import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { waitFor } from '../../../src/util/wait';
import { createWorker } from '../../../src/worker/create-worker';
import type { SagaStatus } from '../../../src/workflow';
import { deploysDomain } from '../../support/domains/deploys';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../support/order-env';
import { testConfig, uniqueName } from '../../support/services';
import { workflowBundle } from '../../support/workflow-bundle';

/**
 * A deploy with runs in flight, done the simplest way: renewals charged and waiting on a
 * failing mail API; the team renames the mail step (another key), inserts an audit step before
 * it, stops the old worker and starts the new one. The runs in flight finish on the code they
 * started on: one charge, one mail under the old key, no audit; new runs take the new code.
 */
describe('a deploy of changed workflow code with runs in flight (real stack)', function () {
  this.timeout(300_000);
  let env: OrderEnv;
  let connection: NativeConnection;
  const taskQueue = uniqueName('deploys-tq');
  const config = testConfig();
  before(async () => {
    env = await createOrderEnv({ inProcessWorker: false });
    await env.db.pool.query('CREATE TABLE effects (key text PRIMARY KEY, what text NOT NULL)');
    connection = await NativeConnection.connect({ address: config.temporal.address });
  });
  after(async () => {
    await connection.close();
    await env.close();
  });

  async function runVersion(v: 'v1' | 'v2') {
    const domain = deploysDomain(v);
    const worker: Worker = await createWorker({
      domains: [domain],
      connection,
      config,
      deps: {
        pool: env.db.pool,
        providers: { url: env.providers.url, timeoutMs: 5000, transientRetryWindowMs: 3_600_000 },
      },
      taskQueue,
      workflowBundle: await workflowBundle({ domains: [domain] }),
    });
    return { worker, running: worker.run() };
  }
  const start = (renewalId: string) =>
    env.client.workflow.start('renewal', {
      taskQueue,
      workflowId: uniqueName(`RenewalDue:${renewalId}`),
      args: [eventInputOf('RenewalDue', renewalId, { renewalId })],
    });
  const status = (h: WorkflowHandle) => h.query<SagaStatus>('status');

  it('runs in flight finish on their own code after a rename-and-insert deploy; new runs take the new', async () => {
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const v1 = await runVersion('v1');
    const inFlight = Array.from({ length: 6 }, () => uniqueName('renewal'));
    const handles = await Promise.all(inFlight.map(start));
    for (const h of handles)
      await waitFor(async () => (await status(h)).waiting?.step === 'email', {
        timeoutMs: 60_000,
        what: 'charged, then waiting on the mail API',
      });
    const pinnedTo = (await handles[0]!.describe()).raw.workflowExecutionInfo?.versioningInfo
      ?.deploymentVersion?.buildId;
    assert.ok(pinnedTo, 'the runs are pinned to a build');

    // The deploy: the old worker stopped, the new code started in its place.
    v1.worker.shutdown();
    await v1.running;
    const v2 = await runVersion('v2');
    try {
      // New runs start on the new build once it is the deployment's current one.
      await waitFor(
        async () => {
          const d = await connection.workflowService.describeWorkerDeployment({
            namespace: config.temporal.namespace,
            deploymentName: taskQueue,
          });
          const current = d.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion;
          return current?.buildId !== undefined && current.buildId !== pinnedTo;
        },
        { timeoutMs: 60_000, intervalMs: 200, what: 'the new build to be current' },
      );
      await env.setFaults({ endpoints: { emails: {} } });
      const fresh = uniqueName('renewal');
      const results = await Promise.all([...handles, await start(fresh)].map((h) => h.result()));
      assert.ok(results.every((r) => r.outcome === 'completed'));

      const ranOn = async (h: WorkflowHandle) =>
        (await h.describe()).raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId;
      assert.equal(await ranOn(handles[0]!), pinnedTo, 'it finished on the build it started on');
      for (const id of inFlight) {
        const ledger = await env.ledger(id);
        assert.deepEqual(
          [ledger.charges.length, ledger.emails.map((e) => e.idempotencyKey)],
          [1, [`renewal:${id}:email`]],
          `${id}: one charge, one mail under its old key`,
        );
      }
      const audits = await env.db.pool.query<{ key: string }>(
        'SELECT key FROM effects ORDER BY key',
      );
      assert.deepEqual(
        audits.rows.map((r) => r.key),
        [`renewal:${fresh}:audit`],
        'only the run started after the deploy audits',
      );
      assert.deepEqual(
        (await env.ledger(fresh)).emails.map((e) => e.idempotencyKey),
        [`renewal:${fresh}:notify`],
      );
    } finally {
      v2.worker.shutdown();
      await v2.running;
    }
  });
});
