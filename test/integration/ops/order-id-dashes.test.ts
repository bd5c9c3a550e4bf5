import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import type { WorkflowHandle } from '@temporalio/client';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import type { OrderPlacedData } from '../../../src/domains/orders/order-events';
import { createOrderEnv, type OrderEnv } from '../../support/order-env';
import { runOps } from '../../support/ops-cli';
import { uniqueName } from '../../support/services';

/** What bash makes of a pasted line (the argv of `printf '%s\0'`, nothing run). */
function argvOf(line: string): string[] {
  const r = spawnSync('bash', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\0').slice(0, -1);
}

/** The Web UI's "current details" of a run: the SDK's built-in metadata query. */
async function currentDetails(handle: WorkflowHandle): Promise<string> {
  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return metadata.currentDetails ?? '';
}

/**
 * An order whose ID is `--all`, parked, next to another parked order: the retry command the
 * Web UI suggests for it, pasted into bash and run through the real CLI, retries that one
 * order and nothing else (issue 23: a suggested command must never become a bulk action).
 */
describe('ops CLI: an order ID that looks like an option (real Temporal, worker, providers)', function () {
  this.timeout(180_000);
  let env: OrderEnv;
  let cliEnv: Record<string, string>;
  let dashed: { order: OrderPlacedData; handle: WorkflowHandle };
  let sibling: { order: OrderPlacedData; handle: WorkflowHandle };

  before(async () => {
    env = await createOrderEnv();
    cliEnv = { PROVIDERS_URL: env.providers.url, DATABASE_SCHEMA: env.db.schema };
    // The workflow ID of `--all` is fixed (`<type>:v:--all@1`): a run left by an earlier,
    // interrupted run of this test must not block the start.
    await env.client.workflow
      .getHandle(deriveWorkflowId('OrderPlaced', versionIdentity('--all', 1)))
      .terminate('earlier test run')
      .catch(() => undefined);
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const sku = await env.seedStock(10);
    const dashedOrder = env.newOrder(sku, { orderId: '--all' });
    const siblingOrder = env.newOrder(sku, { orderId: uniqueName('sibling') });
    dashed = { order: dashedOrder, handle: await env.startOrder(dashedOrder) };
    sibling = { order: siblingOrder, handle: await env.startOrder(siblingOrder) };
    for (const { handle } of [dashed, sibling])
      await env.waitForStatus(handle, (s) => s.parked?.step === 'email', 'parking at email');
  });
  after(async () => {
    for (const { handle } of [dashed, sibling].filter(Boolean))
      await handle.terminate('test cleanup').catch(() => 0);
    await env?.close();
  });

  it('orders show takes the ID after `--`, and suggests commands that keep it there', async () => {
    const run = await runOps(['orders', 'show', '--json', '--', '--all'], cliEnv);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.json.orderId, '--all');
    assert.equal(run.json.workflowId, dashed.handle.workflowId);
    const human = await runOps(['orders', 'show', '--', '--all'], cliEnv);
    assert.match(human.stdout, /next:\s+npx onceflow orders retry -- --all · /);
  });

  it("the Web UI's retry command, pasted into bash, retries only the order `--all`", async () => {
    const details = await currentDetails(dashed.handle);
    const line = /`(npx onceflow orders retry [^`]+)`/.exec(details)?.[1];
    assert.ok(line, details);
    const argv = argvOf(line);
    assert.deepEqual(argv, ['npx', 'onceflow', 'orders', 'retry', '--', '--all']);

    await env.setFaults({ endpoints: { emails: {} } });
    const run = await runOps(argv.slice(2), cliEnv);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /retry taken by .* \(order --all, for email\)/);
    assert.equal((await dashed.handle.result()).outcome, 'completed');
    assert.equal((await env.ledger('--all')).emails.length, 1);

    // The other parked order was not touched: still parked, no operator action recorded.
    const other = await env.status(sibling.handle);
    assert.equal(other.parked?.step, 'email');
    assert.deepEqual(other.operatorActions ?? [], []);
    assert.equal((await env.ledger(sibling.order.orderId)).emails.length, 0);
  });
});
