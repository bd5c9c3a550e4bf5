import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { stackPaths } from '../../../harness/stack/paths';
import { startStackPostgres, stopStackPostgres } from '../../../harness/stack/restart';
import { readStackState } from '../../../harness/stack/stack-state';
import { DOMAINS } from '../../../src/domains';
import { payout } from '../../../src/domains/payouts/workflows';
import { waitFor } from '../../../src/util/wait';
import { createWorker } from '../../../src/worker/create-worker';
import type { SagaResult, SagaStatus } from '../../../src/workflow';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../support/order-env';
import { newPayout } from '../../support/payout-data';
import { testConfig, uniqueName } from '../../support/services';
import { workflowBundle } from '../../support/workflow-bundle';

/** How long Postgres is away: a failover or a slow restart. */
const OUTAGE_MS = 60_000;

/**
 * A database failover parks nothing: 50 orders and 50 payouts started while no worker ran,
 * then Postgres stopped for 60 s while the worker came back. Every run meets the outage at its
 * claim, waits on durable timers like a provider outage, and completes once Postgres is back:
 * none parked, each effect once.
 */
describe('a database failover parks nothing (Postgres stopped for 60 s, real stack)', function () {
  this.timeout(600_000);
  let env: OrderEnv;
  const stack = { paths: stackPaths(), state: readStackState()! };
  before(async () => {
    env = await createOrderEnv({ inProcessWorker: false });
  });
  after(async () => {
    await env.close();
  });

  it('100 runs at their claim wait the outage out and complete, none parked', async () => {
    const sku = await env.seedStock(200);
    const orders = Array.from({ length: 50 }, () => env.newOrder(sku));
    const payouts = Array.from({ length: 50 }, () => newPayout());
    const handles: WorkflowHandle[] = [
      ...(await Promise.all(orders.map((o) => env.startOrder(o)))),
      ...(await Promise.all(
        payouts.map((p) =>
          env.client.workflow.start(payout, {
            taskQueue: env.taskQueue,
            workflowId: uniqueName(`PayoutRequested:${p.payoutId}`),
            args: [eventInputOf('PayoutRequested', p.payoutId, p)],
          }),
        ),
      )),
    ];
    const stoppedAt = Date.now();
    await stopStackPostgres(stack);
    let worker: { stop(): Promise<void> } | undefined;
    try {
      const config = testConfig();
      const connection = await NativeConnection.connect({ address: config.temporal.address });
      const w = await createWorker({
        domains: DOMAINS,
        connection,
        config,
        deps: {
          pool: env.db.pool,
          providers: {
            url: env.providers.url,
            timeoutMs: 5000,
            transientRetryWindowMs: 60 * 60_000,
            transientRetryIntervalMs: 5000,
          },
        },
        taskQueue: env.taskQueue,
        workflowBundle: await workflowBundle(),
      });
      const running = w.run();
      worker = {
        stop: async () => {
          w.shutdown();
          await running;
          await connection.close();
        },
      };
      // Every run meets the outage at its claim (orders: the reserve) and waits.
      const status = (h: WorkflowHandle, i: number) =>
        h.query<SagaStatus>(i < orders.length ? 'orderStatus' : 'status');
      await waitFor(
        async () => {
          const all = await Promise.all(handles.map(status));
          if (all.every((s) => s.step === 'waiting')) return true;
          // Thrown, not returned: a timeout then says where the runs stood.
          const steps = all.map((s) => s.step);
          throw new Error(
            [...new Set(steps)]
              .map((x) => `${x} ${steps.filter((y) => y === x).length}`)
              .join(', '),
          );
        },
        { timeoutMs: OUTAGE_MS, intervalMs: 1000, what: 'every run waiting on the database' },
      );
      // The outage lasts its length (a fault's schedule, not a synchronisation).
      await new Promise((r) => setTimeout(r, Math.max(0, stoppedAt + OUTAGE_MS - Date.now())));
    } finally {
      await startStackPostgres(stack);
    }
    try {
      const results = (await Promise.all(handles.map((h) => h.result()))) as SagaResult[];
      assert.deepEqual(
        [...new Set(results.map((r) => r.outcome))],
        ['completed'],
        'every run completed',
      );
      for (const h of handles) {
        const memo = (await h.describe()).memo as { waited?: { totalMs: number } };
        assert.ok((memo.waited?.totalMs ?? 0) > 0, `${h.workflowId} waited, never parked`);
      }
      for (const o of orders) {
        const ledger = await env.ledger(o.orderId);
        assert.deepEqual([ledger.charges.length, ledger.emails.length], [1, 1], o.orderId);
      }
      for (const p of payouts) {
        const ledger = await env.ledger(p.payoutId);
        assert.deepEqual([ledger.charges.length, ledger.emails.length], [1, 1], p.payoutId);
      }
    } finally {
      await worker?.stop();
    }
  });
});
