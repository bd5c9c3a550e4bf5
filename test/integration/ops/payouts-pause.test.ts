import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { payout } from '../../../src/domains/payouts/workflows';
import type { PayoutRequestedData } from '../../../src/domains/payouts/payout-events';
import { waitFor } from '../../../src/util/wait';
import { createWorker } from '../../../src/worker/create-worker';
import { DOMAINS } from '../../../src/domains';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../support/order-env';
import { runOps, startProviderGate, type ProviderGate } from '../../support/ops-cli';
import { testConfig, uniqueName } from '../../support/services';
import { workflowBundle } from '../../support/workflow-bundle';

/**
 * `payouts pause|resume --activity NAME` on the real stack: a payout whose transfer never
 * answers (the gate holds the provider's charge endpoint, which the transfer calls) has its
 * pending transferFunds paused by name, then resumed; it transfers once.
 */
describe('ops CLI: payouts pause and resume by activity (real Temporal, activity pause)', function () {
  this.timeout(240_000);
  let env: OrderEnv;
  let gate: ProviderGate;
  let worker: { worker: Worker; running: Promise<void>; connection: NativeConnection };
  let cliEnv: Record<string, string>;
  let handle: WorkflowHandle | undefined;

  before(async () => {
    env = await createOrderEnv({ inProcessWorker: false });
    gate = await startProviderGate(env.providers.url);
    const config = testConfig();
    const connection = await NativeConnection.connect({ address: config.temporal.address });
    // A held transfer times out after 8 s: its fast-phase budget lasts about a minute, room
    // enough to pause it on a loaded machine.
    const w = await createWorker({
      domains: DOMAINS,
      connection,
      config,
      deps: { pool: env.db.pool, providers: { url: gate.url, timeoutMs: 8000 } },
      taskQueue: env.taskQueue,
      workflowBundle: await workflowBundle(),
    });
    worker = { worker: w, running: w.run(), connection };
    cliEnv = { PROVIDERS_URL: env.providers.url, DATABASE_SCHEMA: env.db.schema };
  });
  after(async () => {
    await handle?.terminate('test cleanup').catch(() => 0);
    worker?.worker.shutdown();
    await worker?.running;
    await worker?.connection.close();
    await gate?.close();
    await env?.close();
  });

  it('pauses the pending transfer by its activity name, resumes it, and it transfers once', async () => {
    gate.mode = 'hold-charges';
    const prefix = `${uniqueName('ppause')}-`;
    const data: PayoutRequestedData = {
      payoutId: `${prefix}1`,
      beneficiaryId: 'ben_pause',
      email: 'ben@example.com',
      amountMinor: 900,
      currency: 'EUR',
    };
    handle = await env.client.workflow.start(payout, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`PayoutRequested:${data.payoutId}`),
      args: [eventInputOf('PayoutRequested', data.payoutId, data)],
    });
    const h = handle;
    const pendingTransfer = async () =>
      (await h.describe()).raw.pendingActivities?.find(
        (a) => a.activityType?.name === 'transferFunds',
      );
    const select = ['--activity', 'transferFunds', '--prefix', prefix];
    await waitFor(
      async () => {
        const run = await runOps(['payouts', 'pause', ...select, '--dry-run', '--json'], cliEnv);
        return run.json?.wouldPause === 1 ? true : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'the transfer in the pause selection' },
    );
    const other = await runOps(
      [
        'payouts',
        'pause',
        '--activity',
        'notifyBeneficiary',
        '--prefix',
        prefix,
        '--dry-run',
        '--json',
      ],
      cliEnv,
    );
    assert.equal(other.json.wouldPause, 0, 'another activity selects nothing');

    const paused = await runOps(
      ['payouts', 'pause', ...select, '--reason', 'bank down', '--yes', '--json'],
      cliEnv,
    );
    assert.equal(paused.code, 0, paused.stderr);
    assert.equal(paused.json.paused, 1);
    assert.equal((await pendingTransfer())?.paused, true);

    gate.mode = 'pass';
    const resumed = await runOps(
      ['payouts', 'resume', ...select, '--jitter', '1s', '--yes', '--json'],
      cliEnv,
    );
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.json.resumed, 1);
    assert.equal(((await h.result()) as { outcome: string }).outcome, 'completed');
    assert.equal((await env.ledger(data.payoutId)).charges.length, 1);
  });
});
