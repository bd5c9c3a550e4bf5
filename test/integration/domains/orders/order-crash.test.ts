import { strict as assert } from 'node:assert';
import { waitFor } from '../../../../src/util/wait';
import { createOrderEnv, type OrderEnv } from '../../../support/order-env';
import { spawnOrderWorker, type WorkerProcess } from '../../../support/worker-process';

describe('crash recovery with real worker processes', () => {
  let env: OrderEnv;
  const workers: WorkerProcess[] = [];
  beforeEach(async () => {
    env = await createOrderEnv({ inProcessWorker: false });
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop('SIGKILL')));
    await env.close();
  });

  it('SIGKILL after the provider committed the charge: a new worker finishes; one charge, one email', async () => {
    // The first charge response is held, so the worker is killed between the provider's
    // commit and the activity's completion.
    await env.setFaults({ endpoints: { charges: { holdResponseMs: 60_000, limit: 1 } } });
    const first = await spawnOrderWorker(env);
    workers.push(first);
    const sku = await env.seedStock(4);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    await waitFor(async () => (await env.ledger(order.orderId)).charges.length === 1, {
      timeoutMs: 60_000,
      what: 'the provider to commit the charge',
    });
    assert.equal(
      (await env.status(handle)).recoveryPoints.some((p) => p.step === 'charge'),
      false,
      'the charge activity has not completed',
    );
    await first.stop('SIGKILL');

    const second = await spawnOrderWorker(env);
    workers.push(second);
    const result = await handle.result();
    assert.equal(result.outcome, 'completed');
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length, 1, 'one charge for the key');
    assert.equal(ledger.charges[0]!.idempotencyKey, `order:${order.orderId}:charge`);
    assert.equal(result.chargeId, ledger.charges[0]!.id);
    assert.equal(ledger.emails.length, 1, 'one email');
    assert.equal(await env.stockOf(sku), 2, 'stock decremented once');
    await second.stop('SIGTERM');
  });
});
