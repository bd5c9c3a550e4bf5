import { strict as assert } from 'node:assert';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { pacedRate } from '../../../src/activities/provider-pace';
import { providerTaskQueue } from '../../../src/util/provider-queue';
import { createProviderPaceStore } from '../../../src/db/provider-pace-store';
import { createPool } from '../../../src/db/pool';
import { createWorker } from '../../../src/worker/create-worker';
import { DOMAINS } from '../../../src/domains';
import { waitFor } from '../../../src/util/wait';
import { createOrderEnv, type OrderEnv } from '../../support/order-env';
import { testConfig, uniqueName } from '../../support/services';
import { workflowBundle } from '../../support/workflow-bundle';

const LIMIT = 5;
const SHARE = 0.95;
const ORDERS = 60;
const { TaskQueueType } = temporal.api.enums.v1;

/** The most of `times` (ms, ascending) that fall within any one sliding second. */
function mostInAnySecond(times: readonly number[]): number {
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/**
 * A provider's limit held exactly across workers (PROVIDER_RATE_LIMITS, paced in the
 * activity's path: src/activities/provider-pace.ts): two workers send 60 orders' mails to a
 * mail provider limited to 5 calls a second; the provider's own log (its rows' times) never
 * shows more than 5 in any sliding second, and the calls go at 90 % of the limit or more.
 * Real Temporal, Postgres and sandbox providers.
 */
describe('provider pace: a limit held exactly across two workers (real stack)', function () {
  this.timeout(240_000);
  let env: OrderEnv;
  let second: { worker: Worker; running: Promise<void>; connection: NativeConnection };

  before(async () => {
    const fairness = {
      providerRateLimits: { mail: { perSecond: LIMIT } },
      tenantWeights: {},
      providerRateShare: SHARE,
    };
    env = await createOrderEnv({ fairness });
    const config = { ...testConfig(), fairness };
    const connection = await NativeConnection.connect({ address: config.temporal.address });
    const worker = await createWorker({
      domains: DOMAINS,
      connection,
      config,
      deps: { pool: env.db.pool, providers: { url: env.providers.url, timeoutMs: 5000 } },
      taskQueue: env.taskQueue,
      workflowBundle: await workflowBundle(),
    });
    second = { worker, running: worker.run(), connection };
  });

  after(async () => {
    if (second) {
      second.worker.shutdown();
      await second.running;
      await second.connection.close();
    }
    await env?.close();
  });

  it(`claims are spaced one interval apart however many workers claim at once`, async () => {
    const schema = env.db.schema;
    const pools = [0, 1].map(() => createPool(testConfig().database, { schema }));
    try {
      const stores = pools.map((p) => createProviderPaceStore(p));
      const provider = uniqueName('pace');
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) => stores[i % 2]!.claim(provider, 50)),
      );
      const moments = claims.map((c) => c.atMs).sort((a, b) => a - b);
      for (let i = 1; i < moments.length; i++) {
        const gap = moments[i]! - moments[i - 1]!;
        assert.ok(Math.abs(gap - 50) < 0.01, `claims ${i - 1} and ${i} are ${gap} ms apart`);
      }
      for (const c of claims) assert.ok(c.waitMs >= 0 && c.waitMs < 20 * 50 + 500, 'waits');
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  /** Sets the mail queue's rate at Temporal (0 holds every mail in matching). */
  const setMailRate = (requestsPerSecond: number) =>
    env.client.workflowService.updateTaskQueueConfig({
      namespace: 'default',
      identity: 'provider-pace test',
      taskQueue: providerTaskQueue(env.taskQueue, 'mail'),
      taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      updateQueueRateLimit: { rateLimit: { requestsPerSecond }, reason: 'test' },
    });

  it(`${ORDERS} mails through a provider limited to ${LIMIT}/s: never more than ${LIMIT} in a sliding second, at ${0.9 * LIMIT}/s or more`, async () => {
    // Every mail waits in matching first, so the pace (not the orders' earlier steps) sets
    // the rate: then Temporal lets a second's worth through at once, as after any quiet spell.
    await setMailRate(0);
    const sku = await env.seedStock(ORDERS * 10);
    const orders = Array.from({ length: ORDERS }, () => env.newOrder(sku));
    await Promise.all(orders.map((o) => env.startOrder(o)));
    await waitFor(
      async () => {
        const { stats } = await env.client.workflowService.describeTaskQueue({
          namespace: 'default',
          taskQueue: { name: providerTaskQueue(env.taskQueue, 'mail') },
          taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
          reportStats: true,
        });
        return Number(stats?.approximateBacklogCount ?? 0) >= ORDERS;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: `${ORDERS} mails waiting in matching` },
    );
    await setMailRate(pacedRate(LIMIT, SHARE));
    const ids = orders.map((o) => o.orderId);
    const times = await waitFor(
      async () => {
        const { rows } = await env.db.pool.query<{ at: Date }>(
          'SELECT created_at AS at FROM provider_emails WHERE order_id = ANY($1) ORDER BY created_at',
          [ids],
        );
        return rows.length >= ORDERS ? rows.map((r) => r.at.getTime()) : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: `${ORDERS} mails sent` },
    );
    assert.equal(times.length, ORDERS, 'each order mailed once');
    const most = mostInAnySecond(times);
    const rate = ((times.length - 1) * 1000) / (times.at(-1)! - times[0]!);
    const spans = times.slice(LIMIT).map((t, i) => t - times[i]!);
    assert.ok(
      most <= LIMIT,
      `${most} mails within one second (limit ${LIMIT}); spans of ${LIMIT + 1} mails (ms): ${spans.join(' ')}`,
    );
    assert.ok(
      rate >= 0.9 * LIMIT,
      `mails went at ${rate.toFixed(2)}/s, below 90 % of ${LIMIT}; spans (ms): ${spans.join(' ')}`,
    );
  });
});
