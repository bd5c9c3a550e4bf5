import { strict as assert } from 'node:assert';
import { z } from 'zod';
import { defineRoute } from '../../../src/events/define-route';
import { routeTableOf } from '../../../src/events/routes';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { createOrderEnv, type OrderEnv } from '../../support/order-env';
import { readPublished } from '../../support/published-events';
import { spawnOrderWorker, type WorkerProcess } from '../../support/worker-process';

/**
 * Publishing is a step: an order publishes OrderFulfilled with its `announce` key as the event
 * ID. A worker killed after the send, before the activity completed, sends it again on retry:
 * two records, one event ID, and a onceflow bridge downstream starts one run for them.
 */
describe('a publishing step acts once downstream, however often it runs (real stack)', function () {
  this.timeout(180_000);
  let env: OrderEnv;
  let downstream: BridgeHarness;
  const workers: WorkerProcess[] = [];
  before(async () => {
    env = await createOrderEnv({ inProcessWorker: false });
    downstream = await new BridgeHarness().setUp(1);
  });
  after(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop('SIGKILL')));
    await downstream.tearDown();
    await env.close();
  });

  it('worker killed between the send and the completion: two records, one event ID, one run', async () => {
    const topic = { ORDERS_EVENTS_TOPIC: downstream.topic };
    const first = await spawnOrderWorker(env, { ...topic, ORDER_TEST_HOLD_PUBLISH: '1' });
    workers.push(first);
    const order = env.newOrder(await env.seedStock(2));
    const handle = await env.startOrder(order);
    await waitFor(() => first.output().includes('published'), {
      timeoutMs: 60_000,
      what: 'the first worker to send OrderFulfilled',
    });
    const status = await env.status(handle);
    assert.ok(!status.recoveryPoints.some((p) => p.step === 'announce'), 'not completed yet');
    await first.stop('SIGKILL');

    workers.push(await spawnOrderWorker(env, topic));
    assert.equal((await handle.result()).outcome, 'completed');
    const records = await readPublished(downstream.topic);
    const eventId = `order:${order.orderId}:announce`;
    assert.deepEqual(
      records.map((r) => [r.key, r.headers['event-id'], r.headers['event-type']]),
      [
        [order.orderId, eventId, 'OrderFulfilled'],
        [order.orderId, eventId, 'OrderFulfilled'],
      ],
      'the retried step sent the same event again',
    );
    assert.equal((records[0]!.value as { data: { orderId: string } }).data.orderId, order.orderId);

    // Downstream: a onceflow bridge with a route for OrderFulfilled.
    const shipping = defineRoute({
      eventType: 'OrderFulfilled',
      schema: z.object({ orderId: z.string() }).passthrough(),
      workflow: 'shipOrder',
    });
    await downstream.startBridge({ routes: routeTableOf([shipping]) });
    await downstream.waitUntilAllCommitted();
    assert.equal(await downstream.ledgerCount(), 1, 'one start in the ledger');
    // Visibility indexes the start a moment after it: wait until it lists one, then count.
    const runs = await waitFor(
      async () => {
        const ids: string[] = [];
        for await (const run of downstream.client.workflow.list({
          query: `WorkflowType = 'shipOrder' AND TaskQueue = '${downstream.taskQueue}'`,
        }))
          ids.push(run.workflowId);
        return ids.length > 0 ? ids : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'the downstream run in visibility' },
    );
    assert.deepEqual(runs, [`OrderFulfilled:e:${eventId}`], 'one downstream run');
  });
});
