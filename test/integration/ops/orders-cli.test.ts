import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import type { OrderPlacedData } from '../../../src/domains/orders/order-events';
import { waitFor } from '../../../src/util/wait';
import { createOrderEnv, type OrderEnv } from '../../support/order-env';
import { runOps } from '../../support/ops-cli';

/**
 * The `orders` commands against the real stack: three orders parked in needs_attention by a
 * failing mail API, then fixed one each by retry, resolve and cancel through the CLI.
 */
describe('ops CLI: orders (real Temporal, worker and providers)', function () {
  this.timeout(180_000);
  let env: OrderEnv;
  let cliEnv: Record<string, string>;
  const orders: Array<{ order: OrderPlacedData; handle: WorkflowHandle }> = [];
  let sku: string;

  before(async () => {
    env = await createOrderEnv();
    cliEnv = { PROVIDERS_URL: env.providers.url, DATABASE_SCHEMA: env.db.schema };
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    sku = await env.seedStock(10);
    for (let i = 0; i < 3; i++) {
      const order = env.newOrder(sku);
      orders.push({ order, handle: await env.startOrder(order) });
    }
    await Promise.all(
      orders.map(({ handle }) =>
        env.waitForStatus(handle, (s) => s.step === 'needs_attention', 'parking at email'),
      ),
    );
  });
  after(async () => {
    await Promise.all(orders.map(({ handle }) => handle.terminate('test cleanup').catch(() => 0)));
    await env?.close();
  });

  it('orders list --step needs_attention --status running finds the parked orders', async () => {
    const ids = orders.map((o) => o.order.orderId);
    const listed = await waitFor(
      async () => {
        const run = await runOps(
          ['orders', 'list', '--step', 'needs_attention', '--status', 'running', '--json'],
          cliEnv,
        );
        assert.equal(run.code, 0, run.stderr);
        const found = (run.json.orders as Array<{ orderId: string }>).map((o) => o.orderId);
        return ids.every((id) => found.includes(id)) ? run.json : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'parked orders in visibility' },
    );
    assert.match(listed.query, /Step = 'needs_attention'/);
    assert.match(listed.uiUrl, /\/workflows\?query=/);
    const mine = listed.orders.find((o: { orderId: string }) => o.orderId === ids[0]);
    assert.equal(mine.step, 'needs_attention');
    assert.equal(mine.status, 'RUNNING');

    const older = await runOps(['orders', 'list', '--older-than', '1h', '--json'], cliEnv);
    assert.equal(older.code, 0, older.stderr);
    assert.ok(!older.json.orders.some((o: { orderId: string }) => ids.includes(o.orderId)));

    const human = await runOps(['orders', 'list', '--step', 'needs_attention'], cliEnv);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /^ORDER\s+STEP\s+STATUS/);
  });

  it('orders show prints status, step, keys, provider ledger, reservation and the UI link', async () => {
    const { order, handle } = orders[0]!;
    const run = await runOps(['orders', 'show', order.orderId, '--json'], cliEnv);
    assert.equal(run.code, 0, run.stderr);
    const shown = run.json;
    assert.equal(shown.workflowId, handle.workflowId);
    assert.equal(shown.status, 'RUNNING');
    assert.equal(shown.step, 'needs_attention');
    assert.equal(shown.parked.step, 'email');
    assert.equal(shown.keys.charge, `order:${order.orderId}:charge`);
    assert.equal(shown.providerLedger.charges.length, 1);
    assert.equal(shown.providerLedger.emails.length, 0);
    assert.equal(shown.reservation.status, 'reserved');
    assert.equal(shown.reservation.key, `order:${order.orderId}:reserve`);
    assert.ok(shown.uiUrl.includes(encodeURIComponent(handle.workflowId)), shown.uiUrl);

    const human = await runOps(['orders', 'show', order.orderId], cliEnv);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /step:\s+needs_attention/);
    assert.match(
      human.stdout,
      /npx onceflow orders retry -- \S+ · npx onceflow orders resolve -- /,
    );
  });

  it('orders retry re-runs the parked step once the provider is back: one email', async () => {
    await env.setFaults({ endpoints: { emails: {} } });
    const { order, handle } = orders[0]!;
    const run = await runOps(['orders', 'retry', order.orderId, '--json'], cliEnv);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual([run.json.via, run.json.steps], ['update', ['email']]);
    assert.equal((await handle.result()).outcome, 'completed');
    assert.equal((await env.ledger(order.orderId)).emails.length, 1);

    const again = await runOps(['orders', 'retry', order.orderId, '--json'], cliEnv);
    assert.equal(again.code, 1, 'a closed order cannot be retried');
    assert.equal(again.json.error, 'InvalidStateError');
  });

  it('orders resolve continues after the parked step without repeating it', async () => {
    const { order, handle } = orders[1]!;
    // A request the run would refuse is rejected before it writes anything, in its own words.
    const refused = await runOps(
      ['orders', 'resolve', order.orderId, '--step', 'charge', '--json'],
      cliEnv,
    );
    assert.equal(refused.code, 1, refused.stdout);
    assert.equal(refused.json.error, 'InvalidStateError');
    assert.match(refused.json.message, /the run refused resolve: step charge is not waiting/);
    const run = await runOps(
      ['orders', 'resolve', order.orderId, '--step', 'email', '--result', '{}', '--json'],
      cliEnv,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual([run.json.via, run.json.steps], ['update', ['email']]);
    assert.equal((await handle.result()).outcome, 'completed');
    assert.equal((await env.ledger(order.orderId)).emails.length, 0);
  });

  it('orders cancel compensates the parked order: refunded, stock restored', async () => {
    const { order, handle } = orders[2]!;
    const run = await runOps(
      ['orders', 'cancel', order.orderId, '--reason', 'customer called', '--json'],
      cliEnv,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.json.signal, 'cancelOrder');
    assert.equal((await handle.result()).outcome, 'cancelled');
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.refunds.length, 1);
    assert.equal(ledger.emails.length, 0);
    // 10 seeded, 3 orders × 2 reserved, one cancelled and released.
    assert.equal(await env.stockOf(sku), 6);
  });

  it('exit codes: 1 for an unknown order, 2 for bad usage, 78 for a bad setting', async () => {
    const missing = await runOps(['orders', 'show', 'no-such-order-xyz', '--json'], cliEnv);
    assert.equal(missing.code, 1);
    assert.equal(missing.json.error, 'NotFoundError');
    const usage = await runOps(['orders', 'list', '--status', 'sleeping'], cliEnv);
    assert.equal(usage.code, 2);
    const unknown = await runOps(['orders', 'frobnicate'], cliEnv);
    assert.equal(unknown.code, 2);
    const badOption = await runOps(['orders', 'list', '--nope'], cliEnv);
    assert.equal(badOption.code, 2);
    const config = await runOps(['orders', 'list'], { ...cliEnv, TEMPORAL_ADDRESS: 'nonsense' });
    assert.equal(config.code, 78);
  });
});
