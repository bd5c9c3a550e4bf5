import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { waitFor } from '../../../src/util/wait';
import { createOrderEnv, type OrderEnv } from '../../support/order-env';
import { runOps } from '../../support/ops-cli';
import { providerOutage, type ProviderOutage } from '../../support/provider-outage';
import { uniqueName } from '../../support/services';

/**
 * `orders list --step waiting` against a real waiting order: the providers are stopped, so
 * the charge waits out a transient cause (window of an hour: it never parks here). The
 * order is listed under `waiting` and not under `needs_attention`.
 */
describe('ops CLI: orders list --step waiting (providers stopped, real stack)', function () {
  this.timeout(180_000);
  let env: OrderEnv;
  let outage: ProviderOutage | undefined;
  let handle: WorkflowHandle | undefined;
  after(async () => {
    await handle?.terminate('test cleanup').catch(() => undefined);
    await outage?.close();
    await env?.close();
  });

  it('finds the waiting order under --step waiting, not under --step needs_attention', async () => {
    env = await createOrderEnv({ transientRetryWindowMs: 3_600_000 });
    outage = providerOutage(env);
    const cliEnv = { PROVIDERS_URL: env.providers.url, DATABASE_SCHEMA: env.db.schema };
    const prefix = uniqueName('waiting-list');
    const order = env.newOrder(await env.seedStock(2), { orderId: `${prefix}-0` });
    await outage.stop();
    handle = await env.startOrder(order);

    const list = (step: string) =>
      runOps(['orders', 'list', '--step', step, '--prefix', prefix, '--json'], cliEnv);
    const waiting = await waitFor(
      async () => {
        const run = await list('waiting');
        assert.equal(run.code, 0, run.stderr);
        return run.json.count === 1 ? run.json : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 1000, what: 'the order listed as waiting' },
    );
    assert.match(waiting.query, / Step = 'waiting'/);
    assert.equal(waiting.orders[0].orderId, order.orderId);
    assert.equal(waiting.orders[0].step, 'waiting');
    assert.equal(waiting.orders[0].status, 'RUNNING');

    const parked = await list('needs_attention');
    assert.equal(parked.code, 0, parked.stderr);
    assert.equal(parked.json.count, 0);
    assert.equal((await env.status(handle)).parked, undefined);
  });
});
