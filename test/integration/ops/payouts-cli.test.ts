import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { payout } from '../../../src/domains/payouts/workflows';
import type { PayoutRequestedData } from '../../../src/domains/payouts/payout-events';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import { statusQuery } from '../../../src/workflows/saga-status';
import { waitFor } from '../../../src/util/wait';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../support/order-env';
import { runOps } from '../../support/ops-cli';
import { uniqueName } from '../../support/services';

/**
 * The ops CLI on the second domain, with no command of its own: payouts parked at `notify`
 * by a failing mail API are found by `payouts list --step needs_attention`, shown with cause
 * and action, and fixed through the CLI (retry, resolve, cancel, cancel --all) with the
 * operator's record, as orders are. Real Temporal, worker, Postgres and sandbox providers.
 */
describe('ops CLI: payouts, a domain known only from the registry (real stack)', function () {
  this.timeout(240_000);
  let env: OrderEnv;
  let cliEnv: Record<string, string>;
  const prefix = `${uniqueName('pcli')}-`;
  const parked: Array<{ data: PayoutRequestedData; handle: WorkflowHandle }> = [];

  const startPayout = async (payoutId: string) => {
    const data: PayoutRequestedData = {
      payoutId,
      beneficiaryId: 'ben_cli',
      email: 'ben@example.com',
      amountMinor: 4200,
      currency: 'EUR',
    };
    // The workflow ID the bridge derives for PayoutRequested `payoutId@1`.
    const handle = await env.client.workflow.start(payout, {
      taskQueue: env.taskQueue,
      workflowId: deriveWorkflowId('PayoutRequested', versionIdentity(payoutId, 1)),
      args: [eventInputOf('PayoutRequested', payoutId, data)],
    });
    return { data, handle };
  };
  const waitParked = (handle: WorkflowHandle) =>
    waitFor(
      async () => {
        const s = await handle.query(statusQuery);
        return s.step === 'needs_attention' ? s : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 300, what: `${handle.workflowId} parked` },
    );

  before(async () => {
    env = await createOrderEnv();
    cliEnv = { PROVIDERS_URL: env.providers.url, DATABASE_SCHEMA: env.db.schema };
    // The mail API fails every request: each payout transfers, then parks at notify.
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    for (const suffix of ['retry', 'resolve', 'cancel', 'bulk-a', 'bulk-b', 'no-worker'])
      parked.push(await startPayout(`${prefix}${suffix}`));
    await Promise.all(parked.map(({ handle }) => waitParked(handle)));
  });
  after(async () => {
    await Promise.all(parked.map(({ handle }) => handle.terminate('test cleanup').catch(() => 0)));
    await env?.close();
  });

  it('payouts list --step needs_attention finds the parked payouts (and orders list does not)', async () => {
    const ids = parked.map((p) => p.data.payoutId);
    const listed = await waitFor(
      async () => {
        const run = await runOps(
          ['payouts', 'list', '--step', 'needs_attention', '--prefix', prefix, '--json'],
          cliEnv,
        );
        assert.equal(run.code, 0, run.stderr);
        const found = (run.json.runs as Array<{ entityId: string }>).map((r) => r.entityId);
        return ids.every((id) => found.includes(id)) ? run.json : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'parked payouts in visibility' },
    );
    assert.equal(listed.domain, 'payouts');
    assert.match(listed.query, /WorkflowType = 'payout'/);
    assert.match(listed.query, /Step = 'needs_attention'/);
    assert.equal(listed.count, ids.length);
    const mine = listed.runs.find((r: { entityId: string }) => r.entityId === ids[0]);
    assert.equal(mine.step, 'needs_attention');
    assert.equal(mine.status, 'RUNNING');
    assert.equal(mine.customerId, 'ben_cli');

    const human = await runOps(['payouts', 'list', '--step', 'needs_attention'], cliEnv);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^PAYOUT\s+STEP\s+STATUS/);

    const orders = await runOps(['orders', 'list', '--prefix', prefix, '--json'], cliEnv);
    assert.equal(orders.code, 0, orders.stderr);
    assert.equal(orders.json.count, 0, 'a payout is not an order');
  });

  it('payouts show: parked at notify, the cause, the action, the keys, the claim, the link', async () => {
    const { data, handle } = parked[0]!;
    const run = await runOps(['payouts', 'show', '--json', '--', data.payoutId], cliEnv);
    assert.equal(run.code, 0, run.stderr);
    const shown = run.json;
    assert.equal(shown.workflowId, handle.workflowId);
    assert.equal(shown.foundBy, 'claim');
    assert.equal(shown.owner.workflowId, handle.workflowId);
    assert.equal(shown.status, 'RUNNING');
    assert.equal(shown.step, 'needs_attention');
    assert.equal(shown.statusSource, 'query');
    assert.equal(shown.parked.step, 'notify');
    assert.match(shown.parked.error, /\S/);
    assert.equal(shown.keys.transfer, `payout:${data.payoutId}:transfer`);
    assert.ok(shown.uiUrl.includes(encodeURIComponent(handle.workflowId)), shown.uiUrl);

    const human = await runOps(['payouts', 'show', data.payoutId], cliEnv);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^payout:\s+/m);
    assert.match(human.stdout, /parked:\s+notify since/);
    assert.match(human.stdout, /last error:\s+\S/);
    assert.match(
      human.stdout,
      /next:\s+npx onceflow payouts retry -- \S+ · npx onceflow payouts resolve -- \S+ · npx onceflow payouts cancel -- /,
    );
  });

  it('payouts retry runs notify again once the mail API is back; show records who and why', async () => {
    await env.setFaults({ endpoints: { emails: {} } });
    const { data, handle } = parked[0]!;
    const run = await runOps(
      ['payouts', 'retry', data.payoutId, '--by', 'ops-ana', '--reason', 'mail API back', '--json'],
      cliEnv,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual([run.json.via, run.json.steps], ['update', ['notify']]);
    assert.equal(run.json.stepBefore, 'needs_attention');
    assert.equal(((await handle.result()) as { outcome: string }).outcome, 'completed');
    const ledger = await env.ledger(data.payoutId);
    assert.equal(ledger.charges.length, 1, 'the transfer is not repeated');
    assert.equal(ledger.emails.length, 1);

    const shown = await runOps(['payouts', 'show', data.payoutId, '--json'], cliEnv);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.json.status, 'COMPLETED');
    assert.equal(shown.json.outcome, 'completed');
    const [action] = shown.json.operatorActions;
    assert.deepEqual(
      [action.action, action.by, action.reason],
      ['retry', 'ops-ana', 'mail API back'],
    );

    const again = await runOps(['payouts', 'retry', data.payoutId, '--json'], cliEnv);
    assert.equal(again.code, 1, 'a closed payout cannot be retried');
    assert.equal(again.json.error, 'InvalidStateError');
  });

  it('payouts resolve continues after notify without sending it', async () => {
    const { data, handle } = parked[1]!;
    const run = await runOps(['payouts', 'resolve', data.payoutId, '--json'], cliEnv);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual([run.json.via, run.json.steps], ['update', ['notify']]);
    assert.equal(((await handle.result()) as { outcome: string }).outcome, 'completed');
    assert.equal((await env.ledger(data.payoutId)).emails.length, 0);
  });

  it('payouts cancel sends the saga its cancel signal: the transfer is reversed once', async () => {
    const { data, handle } = parked[2]!;
    const run = await runOps(
      ['payouts', 'cancel', data.payoutId, '--by', 'ops-ana', '--reason', 'wrong IBAN', '--json'],
      cliEnv,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.json.signal, 'cancel');
    assert.equal(((await handle.result()) as { outcome: string }).outcome, 'cancelled');
    const ledger = await env.ledger(data.payoutId);
    assert.deepEqual(
      ledger.refunds.map((r) => r.idempotencyKey),
      [`payout:${data.payoutId}:reverse`],
    );
    const shown = await runOps(['payouts', 'show', data.payoutId, '--json'], cliEnv);
    const cancel = shown.json.operatorActions.find(
      (a: { action: string }) => a.action === 'cancel',
    );
    assert.deepEqual([cancel.by, cancel.reason], ['ops-ana', 'wrong IBAN']);
    assert.equal(shown.json.owner.settled, 'cancelled');
  });

  it('payouts cancel --all: dry runs count (by parked step too), the batch cancels both', async () => {
    const bulk = parked.slice(3, 5);
    const selection = ['--prefix', `${prefix}bulk-`];
    const dry = await runOps(
      ['payouts', 'cancel', '--all', ...selection, '--dry-run', '--json'],
      cliEnv,
    );
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(dry.json.selected, 2);
    assert.match(dry.json.query, /WorkflowType = 'payout'/);
    // --parked-at takes the payout's own step names, read from each run's memo `attention`.
    const atNotify = ['--parked-at', 'notify', '--dry-run', '--json'];
    const notify = await runOps(['payouts', 'retry', '--all', ...selection, ...atNotify], cliEnv);
    assert.equal(notify.code, 0, notify.stderr);
    assert.equal(notify.json.selected, 2);
    const atTransfer = ['--parked-at', 'transfer', '--dry-run', '--json'];
    const transfer = await runOps(
      ['payouts', 'retry', '--all', ...selection, ...atTransfer],
      cliEnv,
    );
    assert.deepEqual([transfer.json.selected, transfer.json.parkedElsewhere], [0, 2]);
    const run = await runOps(
      ['payouts', 'cancel', '--all', ...selection, '--reason', 'batch recall', '--yes', '--json'],
      cliEnv,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual([run.json.signalled, run.json.skipped, run.json.failed], [2, 0, 0]);
    for (const { data, handle } of bulk) {
      assert.equal(((await handle.result()) as { outcome: string }).outcome, 'cancelled');
      assert.equal((await env.ledger(data.payoutId)).refunds.length, 1);
    }
  });

  it('exit codes: 1 for an unknown payout, 2 for an unknown domain naming the registered ones', async () => {
    const missing = await runOps(['payouts', 'show', 'no-such-payout-xyz', '--json'], cliEnv);
    assert.equal(missing.code, 1);
    assert.equal(missing.json.error, 'NotFoundError');
    const unknown = await runOps(['refunds', 'list'], cliEnv);
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /unknown domain or command: refunds \(registered domains: orders, payouts, carts;/,
    );
  });

  it('with no worker running, payouts show reads why it is parked from the memo', async () => {
    await env.stopWorker();
    const { data } = parked[5]!;
    const run = await runOps(['payouts', 'show', '--json', '--', data.payoutId], cliEnv);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.json.statusSource, 'memo');
    assert.equal(run.json.step, 'needs_attention');
    assert.deepEqual([run.json.attention.state, run.json.attention.step], ['parked', 'notify']);
    // The saga's own words name the domain's CLI group.
    assert.match(run.json.attention.action, /npx onceflow payouts retry -- /);
    assert.match(run.json.queryError, /\S/);
  });
});
