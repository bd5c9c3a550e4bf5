import { strict as assert } from 'node:assert';
import { gzipSync } from 'node:zlib';
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import {
  buildIdOf,
  loadBuild,
  storeBuild,
  WORKFLOW_SDK_VERSION,
} from '../../../src/db/workflow-build-store';
import { listDeploymentBuilds } from '../../../src/ops/builds-commands';
import { OpsContext } from '../../../src/ops/context';
import { showEntity } from '../../../src/ops/entity-show';
import { opsDomainOf } from '../../../src/ops/ops-domain';
import type { RunStall } from '../../../src/ops/run-progress';
import { waitFor } from '../../../src/util/wait';
import type { BuildReport } from '../../../src/worker/build-report';
import { retryStepSignal, type SagaStatus } from '../../../src/workflow';
import { deploysDomain } from '../../support/domains/deploys';
import { startDeploysWorker } from '../../support/deploys-worker';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../support/order-env';
import { asSuperuserWithoutTriggers } from '../../support/pg-roles';
import { testConfig, uniqueName } from '../../support/services';
import { withChangeMark, workflowBundle } from '../../support/workflow-bundle';

/**
 * A stored build is code every worker may run: it runs only if it is the build it claims to
 * be. Renewals charged and waiting on a failing mail API meet a workflow_builds row changed
 * under their build (code that would mail for them), and a row planted under the next
 * release's build ID before that release ran.
 */
describe('stored builds are verified before they run (real stack)', function () {
  this.timeout(240_000);
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
  /** Waits until the run charged and waits on the mail API (v1's step `email`, v2's `notify`). */
  const waitCharged = (h: WorkflowHandle, step = 'email') =>
    waitFor(async () => (await h.query<SagaStatus>('status')).waiting?.step === step, {
      timeoutMs: 60_000,
      what: `${h.workflowId} charged, then waiting on the mail API`,
    });
  const reportsOf = (reports: BuildReport[][], buildId: string, what: string) =>
    waitFor(() => reports.flat().find((b) => b.buildId === buildId && b.refused), {
      timeoutMs: 60_000,
      what,
    });

  it('a changed row of an older build is refused and shown; its runs wait for that build', async () => {
    const taskQueue = uniqueName('tampered-tq');
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const v1 = await startDeploysWorker(env, connection, config, { v: 'v1', taskQueue });
    const id = uniqueName('renewal');
    const handle = await start(taskQueue, id);
    await waitCharged(handle);
    const b1 = buildIdOf((await workflowBundle({ domains: [deploysDomain('v1')] })).code);
    await v1.stop();
    const mailsScheduled = async () =>
      (await handle.fetchHistory()).events?.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'mailRenewal',
      ).length;
    const mailsBefore = await mailsScheduled();
    // Working code, changed: run, it would mail for the waiting renewal at once.
    const changed = (await workflowBundle({ domains: [deploysDomain('v1')] })).code + '\n;';
    await asSuperuserWithoutTriggers(
      config.database,
      env.db.schema,
      'UPDATE workflow_builds SET code_gzip = $1 WHERE build_id = $2',
      [gzipSync(changed), b1],
    );
    await env.setFaults({ endpoints: { emails: {} } });

    const reports: BuildReport[][] = [];
    const v2 = await startDeploysWorker(env, connection, config, {
      v: 'v2',
      taskQueue,
      onBuildReport: (r) => reports.push([...r]),
    });
    let v1Again: Awaited<ReturnType<typeof startDeploysWorker>> | undefined;
    try {
      const refused = await reportsOf(reports, b1, 'the new worker to refuse the changed build');
      assert.equal(refused.servedBy, 'refused');
      assert.equal(refused.refused?.kind, 'tampered');
      await handle.signal(retryStepSignal, { by: 'test', reason: 'mail API back' });
      const shown = await showEntity(ops, renewals, [id]);
      assert.equal((shown.json as { stalled?: RunStall }).stalled?.kind, 'build-refused');
      assert.match(
        shown.human,
        new RegExp(
          `cannot go on: +pinned to build ${b1}, whose stored code is refused \\(its stored code hashes to`,
        ),
      );
      const builds = await listDeploymentBuilds(ops, ['--deployment', taskQueue]);
      assert.match(builds.human, new RegExp(`${b1}.*refused.*STORED CODE REFUSED \\(tampered\\)`));
      assert.equal(await mailsScheduled(), mailsBefore, 'no mail scheduled by the changed code');
      assert.deepEqual((await env.ledger(id)).emails, [], 'nothing mailed');

      // The remedy: a worker of that build, on its own code.
      v1Again = await startDeploysWorker(env, connection, config, { v: 'v1', taskQueue });
      assert.equal((await handle.result()).outcome, 'completed');
      assert.deepEqual(
        (await env.ledger(id)).emails.map((e) => e.idempotencyKey),
        [`renewal:${id}:email`],
      );
    } finally {
      await v1Again?.stop();
      await v2.stop();
    }
  });

  it("a row planted under the next release's build ID is reported, not taken for its code", async () => {
    const taskQueue = uniqueName('planted-tq');
    // The next release: v2 with a change of its own (v2 itself ran in the test above).
    const next = withChangeMark(
      (await workflowBundle({ domains: [deploysDomain('v2')] })).code,
      '2.1',
    );
    const b2 = buildIdOf(next);
    // Before the release runs anywhere, someone with INSERT stores other code under its ID.
    const planted = (await workflowBundle({ domains: [deploysDomain('v1')] })).code;
    await env.db.pool.query(
      'INSERT INTO workflow_builds (build_id, code_gzip, sdk_version) VALUES ($1, $2, $3)',
      [b2, gzipSync(planted), WORKFLOW_SDK_VERSION],
    );
    const reports: BuildReport[][] = [];
    const v2 = await startDeploysWorker(env, connection, config, {
      v: 'v2',
      taskQueue,
      code: next,
      onBuildReport: (r) => reports.push([...r]),
    });
    try {
      const mine = await reportsOf(reports, b2, 'the release to report the row under its ID');
      assert.equal(mine.servedBy, 'this-worker');
      assert.equal(mine.refused?.kind, 'tampered');
      const builds = await listDeploymentBuilds(ops, ['--deployment', taskQueue]);
      assert.match(builds.human, new RegExp(`${b2}.*refused.*STORED CODE REFUSED \\(tampered\\)`));
      // A run of the release, the current build: only its own workers run it, and show says so.
      await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
      const id = uniqueName('renewal');
      const handle = await start(taskQueue, id);
      await waitCharged(handle, 'notify');
      const shown = await showEntity(ops, renewals, [id]);
      assert.equal((shown.json as { stalled?: RunStall }).stalled?.kind, 'build-refused');
      assert.match(
        shown.human,
        new RegExp(`cannot go on: +pinned to build ${b2}, whose stored code is refused`),
      );
      await handle.terminate('shown');
    } finally {
      await v2.stop();
    }
  });

  it('a bundle built with another @temporalio/workflow is refused, saying which', async () => {
    const code = withChangeMark(
      (await workflowBundle({ domains: [deploysDomain('v1')] })).code,
      '1.1',
    );
    assert.equal((await storeBuild(env.db.pool, buildIdOf(code), code, '1.0.0')).state, 'stored');
    const loaded = await loadBuild(env.db.pool, buildIdOf(code));
    assert.equal(loaded.state, 'refused');
    assert.match(
      (loaded as { reason: string }).reason,
      new RegExp(
        `built with @temporalio/workflow 1\\.0\\.0 and this process hosts ${WORKFLOW_SDK_VERSION.replaceAll('.', '\\.')}`,
      ),
    );
  });
});
