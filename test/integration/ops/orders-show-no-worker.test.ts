import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { waitFor } from '../../../src/util/wait';
import { ATTENTION_MEMO } from '../../../src/domains/orders/workflows/order-definitions';
import { createOrderEnv, type OrderEnv } from '../../support/order-env';
import { runOps } from '../../support/ops-cli';
import {
  parkOrdersForOutage,
  providerOutage,
  type ProviderOutage,
} from '../../support/provider-outage';

/**
 * How long a run may take to reach a state on a loaded machine: a workflow task the server
 * gave up on (core's "Task not found when completing", then the evicted run's local activity
 * "untracked") comes back only after the task's 10 s timeout and a replay, later still when
 * the server's timers lag under load.
 */
const REACH_MS = 150_000;

/**
 * Waits until the run's memo `attention` is in the given state (the server has it). Read from
 * the server, not by querying the run: a query answered while the run's first workflow task
 * holds its claim (a local activity) makes the worker complete that task and take another.
 */
async function waitForMemo(handle: WorkflowHandle, state: 'waiting' | 'parked'): Promise<void> {
  await waitFor(
    async () => {
      const memo = (await handle.describe()).memo?.[ATTENTION_MEMO] as { state?: string };
      return memo?.state === state;
    },
    { timeoutMs: REACH_MS, intervalMs: 250, what: `memo attention ${state}` },
  );
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * `orders show` with no worker running, the moment an operator most needs it: the status
 * query cannot answer, so the cause, since when and the action come from the memo `attention`
 * the workflow wrote, and a waiting step's attempt and next try from the server's pending
 * activity (its waiting round, which Temporal retries).
 */
describe('ops CLI: orders show with the worker stopped (memo attention, real stack)', function () {
  this.timeout(420_000);

  describe('an order waiting on a provider outage', () => {
    let env: OrderEnv;
    let outage: ProviderOutage | undefined;
    let handle: WorkflowHandle | undefined;
    after(async () => {
      await handle?.terminate('test cleanup').catch(() => undefined);
      await outage?.close();
      await env?.close();
    });

    it('shows its cause and since when from the memo, the attempt and the next try from the pending activity', async () => {
      env = await createOrderEnv({ transientRetryWindowMs: 3_600_000 });
      outage = providerOutage(env);
      const cliEnv = { PROVIDERS_URL: env.providers.url, DATABASE_SCHEMA: env.db.schema };
      const order = env.newOrder(await env.seedStock(2));
      await outage.stop();
      handle = await env.startOrder(order);
      await waitForMemo(handle, 'waiting');
      // Its waiting round has tried once and waits for its next attempt.
      const waiting = handle;
      await waitFor(
        async () =>
          ((await waiting.describe()).raw.pendingActivities ?? []).some(
            (p) => (p.attempt ?? 0) >= 2,
          ),
        { timeoutMs: REACH_MS, intervalMs: 250, what: 'the waiting round to retry' },
      );
      await env.stopWorker();

      const run = await runOps(['orders', 'show', order.orderId, '--json'], cliEnv);
      assert.equal(run.code, 0, run.stderr);
      const shown = run.json;
      assert.equal(shown.status, 'RUNNING');
      assert.equal(shown.step, 'waiting');
      assert.equal(shown.statusSource, 'memo');
      assert.match(shown.queryError, /no answer in \d+ ms/);
      assert.equal(shown.attention.state, 'waiting');
      assert.equal(shown.attention.step, 'charge');
      assert.match(shown.attention.cause, /\S/);
      assert.match(shown.attention.since, ISO);
      assert.ok(shown.attention.attempt >= 1, `attempt ${shown.attention.attempt}`);
      assert.match(shown.attention.nextTryAt, ISO);

      const human = await runOps(['orders', 'show', '--', order.orderId], cliEnv);
      assert.equal(human.code, 0, human.stderr);
      assert.match(
        human.stdout,
        /^waiting: +charge since \S+ \(.+ ago\), attempt \d+, next try \S+ \((in|due) .+\), until \S+ at most$/m,
      );
      const lastError = /^last error: +(.*)$/m.exec(human.stdout);
      assert.ok(lastError && lastError[1] !== '-', human.stdout);
      assert.equal(lastError[1], shown.attention.cause);
      assert.match(
        human.stdout,
        /^next: +none needed: charge retries on its own with the same key until \S+, then parks; npx onceflow orders retry -- \S+ tries now/m,
      );
      assert.match(
        human.stdout,
        /^status from: +the workflow memo `attention` \(the status query/m,
      );
    });
  });

  describe('an order parked after the outage outlasted its window', () => {
    let env: OrderEnv;
    let outage: ProviderOutage | undefined;
    let handles: WorkflowHandle[] = [];
    after(async () => {
      await Promise.all(handles.map((h) => h.terminate('test cleanup').catch(() => undefined)));
      await outage?.close();
      await env?.close();
    });

    it('shows its cause (after its window), since when and the action, from the memo', async () => {
      env = await createOrderEnv();
      const parked = await parkOrdersForOutage(env, { count: 1 });
      outage = parked.outage;
      handles = parked.handles;
      const order = parked.orders[0]!;
      await waitForMemo(handles[0]!, 'parked');
      await env.stopWorker();
      const cliEnv = { PROVIDERS_URL: env.providers.url, DATABASE_SCHEMA: env.db.schema };

      const run = await runOps(['orders', 'show', order.orderId, '--json'], cliEnv);
      assert.equal(run.code, 0, run.stderr);
      const shown = run.json;
      assert.equal(shown.step, 'needs_attention');
      assert.equal(shown.statusSource, 'memo');
      assert.equal(shown.attention.state, 'parked');
      assert.equal(shown.attention.step, 'charge');
      assert.match(shown.attention.cause, /\S/);
      assert.match(shown.attention.since, ISO);
      assert.match(shown.attention.cause, /\(waited until \S+, the transient window\)$/);
      assert.match(shown.attention.action, /retryStep/);
      assert.deepEqual(shown.parked, {
        step: 'charge',
        error: shown.attention.cause,
        since: shown.attention.since,
      });

      const human = await runOps(['orders', 'show', '--', order.orderId], cliEnv);
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /^parked: +charge since \S+ \(.+ ago\)$/m);
      assert.match(human.stdout, /^last error: +\S/m);
      assert.doesNotMatch(human.stdout, /^last error: +-$/m);
      assert.match(
        human.stdout,
        /^next: +npx onceflow orders retry -- \S+ · npx onceflow orders resolve -- \S+ · npx onceflow orders cancel -- \S+$/m,
      );
      assert.match(human.stdout, /^status from: +the workflow memo `attention`/m);
    });
  });
});
