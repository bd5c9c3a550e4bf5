import { strict as assert } from 'node:assert';
import { waitFor } from '../../../src/util/wait';
import {
  ATTENTION_MEMO,
  type Attention,
} from '../../../src/domains/orders/workflows/order-definitions';
import { createOrderEnv, type OrderEnv } from '../../support/order-env';
import { runOps } from '../../support/ops-cli';
import { mapLimited, parkOrdersForOutage, statusesOf } from '../../support/provider-outage';
import { uniqueName } from '../../support/services';

const COUNT = 5;

/**
 * Issue 15's second "done when": providers down longer than a (shortened) transient window
 * park the orders with their cause; once the providers are back, ONE `orders retry --all
 * --parked-at charge --yes` (the real CLI process) resumes every one, and a second run finds
 * none. The order-ID prefix keeps other tests' orders in the shared namespace out of it.
 */
describe('ops CLI: an outage longer than the window, then one retry --all (real stack)', function () {
  this.timeout(300_000);
  let env: OrderEnv;
  let close: (() => Promise<void>) | undefined;
  after(async () => {
    await close?.();
    await env?.close();
  });

  it('parks every order with the cause; one retry --all resumes them all; a second finds none', async () => {
    env = await createOrderEnv({ transientRetryWindowMs: 5_000 });
    const prefix = uniqueName('outage-retry');
    const parked = await parkOrdersForOutage(env, { count: COUNT, orderIdPrefix: prefix });
    close = () => parked.outage.close();
    const cliEnv = { PROVIDERS_URL: env.providers.url, DATABASE_SCHEMA: env.db.schema };

    for (const h of parked.handles) {
      const description = await h.describe();
      const attention = description.memo?.[ATTENTION_MEMO] as Attention | undefined;
      assert.equal(attention?.state, 'parked');
      assert.equal(attention?.step, 'charge');
      // The cause names the provider call that got no answer.
      assert.match(attention?.cause ?? '', /ProviderUnreachableError.*\/v1\/charges.*ECONNREFUSED/);
    }
    // Visibility lags the workflow a little: the command selects from it.
    await waitFor(
      async () => {
        const run = await runOps(
          ['orders', 'list', '--step', 'needs_attention', '--prefix', prefix, '--json'],
          cliEnv,
        );
        return run.json?.count === COUNT ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the parked orders in visibility' },
    );

    await parked.outage.start();
    const retryAll = [
      'orders',
      'retry',
      '--all',
      '--parked-at',
      'charge',
      '--prefix',
      prefix,
      '--yes',
      '--json',
    ];
    const first = await runOps(retryAll, cliEnv);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.json.selected, COUNT);
    assert.equal(first.json.signalled, COUNT);
    assert.equal(first.json.skipped, 0);
    assert.equal(first.json.failed, 0);

    const results = await mapLimited(parked.handles, 5, (h) => h.result());
    assert.deepEqual(
      results.map((r) => r.outcome),
      parked.orders.map(() => 'completed'),
    );
    const ledgers = await mapLimited(parked.orders, 5, (o) => env.ledger(o.orderId));
    assert.deepEqual(
      ledgers.map((l) => `${l.charges.length}/${l.emails.length}`),
      parked.orders.map(() => '1/1'),
    );
    for (const s of await statusesOf(parked.handles)) {
      assert.deepEqual(
        s.operatorActions?.map((a) => a.action),
        ['retry'],
      );
    }

    const second = await runOps(retryAll, cliEnv);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.json.selected, 0);
  });
});
