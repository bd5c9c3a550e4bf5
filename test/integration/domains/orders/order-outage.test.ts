import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { waitFor } from '../../../../src/util/wait';
import { SEARCH_ATTRIBUTE } from '../../../../src/temporal/search-attributes';
import { orderCancellation } from '../../../../src/domains/orders/workflows';
import {
  ATTENTION_MEMO,
  retryStepSignal,
  type Attention,
} from '../../../../src/domains/orders/workflows/order-definitions';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../../support/order-env';
import { uniqueName } from '../../../support/services';
import {
  mapLimited,
  parkOrdersForOutage,
  providerOutage,
  statusesOf,
  type ProviderOutage,
} from '../../../support/provider-outage';

async function attentionOf(handle: WorkflowHandle): Promise<Attention | undefined> {
  return (await handle.describe()).memo?.[ATTENTION_MEMO] as Attention | undefined;
}

/** The attempt of the activity Temporal is retrying for the run (its waiting round). */
async function retryingAttemptOf(handle: WorkflowHandle): Promise<number> {
  const pending = (await handle.describe()).raw.pendingActivities ?? [];
  return Math.max(0, ...pending.map((p) => p.attempt ?? 0));
}

describe('a provider outage (providers stopped, real Temporal server)', function () {
  this.timeout(300_000);
  let env: OrderEnv;
  let outage: ProviderOutage | undefined;
  afterEach(async () => {
    await outage?.close();
    outage = undefined;
    await env.close();
  });

  it('100 orders in flight, providers down through a slow-phase round, back: all complete on their own, one charge and one email each', async () => {
    env = await createOrderEnv({
      transientRetryWindowMs: 3_600_000,
      transientRetryIntervalMs: 2000,
    });
    outage = providerOutage(env);
    const sku = await env.seedStock(200);
    const orders = Array.from({ length: 100 }, () => env.newOrder(sku));
    await outage.stop();
    const handles = await mapLimited(orders, 8, (o) => env.startOrder(o));
    // Every order has reached the charge step and waits on the outage (the memo keeps saying
    // so between two rounds of the fast phase, while the step flips waiting ↔ charging).
    const waiting = await waitFor(
      async () => {
        const memos = await mapLimited(handles, 8, attentionOf);
        return memos.every((a) => a?.state === 'waiting' && a.step === 'charge')
          ? memos
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1000, what: 'every order to wait at charge' },
    );
    assert.match(waiting[0]!.cause, /ProviderUnreachableError.*ECONNREFUSED/);
    // The outage lasts until every order's waiting round (one activity Temporal retries, not
    // rounds in the workflow) has tried again and again; an order that parks ends the wait.
    const afterRound = await waitFor(
      async () => {
        const memos = await mapLimited(handles, 8, attentionOf);
        if (memos.some((a) => a?.state === 'parked')) return memos;
        const attempts = await mapLimited(handles, 8, retryingAttemptOf);
        return attempts.every((n) => n >= 3) ? memos : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 1000, what: 'every order retried in its waiting round' },
    );
    assert.deepEqual(
      afterRound.filter((a) => a?.state !== 'waiting' || a.step !== 'charge'),
      [],
      'none parked: still waiting at charge',
    );
    assert.ok(
      (await statusesOf(handles)).every((s) => s.step === 'waiting'),
      'none parked',
    );
    await outage.start();

    const results = await mapLimited(handles, 10, (h) => h.result());
    assert.deepEqual(
      results.map((r) => r.outcome),
      orders.map(() => 'completed'),
    );
    const finals = await statusesOf(handles);
    assert.ok(
      finals.every((s) => !s.operatorActions?.length),
      'no operator action',
    );
    const ledgers = await mapLimited(orders, 8, (o) => env.ledger(o.orderId));
    assert.deepEqual(
      ledgers.map((l) => `${l.charges.length}/${l.emails.length}`),
      orders.map(() => '1/1'),
    );
    for (const h of handles.slice(0, 3)) assert.equal(await attentionOf(h), undefined);
  });

  it('down longer than the (shortened) window: waiting, then parked with the cause, visible with no worker', async () => {
    env = await createOrderEnv({ transientRetryWindowMs: 15_000 });
    const parked = await parkOrdersForOutage(env, {
      count: 5,
      whileWaiting: async (handles) => {
        const first = handles[0]!;
        const description = await first.describe();
        assert.equal(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE.step), 'waiting');
        const attention = await attentionOf(first);
        assert.equal(attention?.state, 'waiting');
        assert.equal(attention?.step, 'charge');
        assert.match(attention?.cause ?? '', /ProviderUnreachableError/);
        assert.ok(attention?.until, 'until when it waits at most');
        assert.equal(attention?.attempt, undefined, "the attempts are Temporal's, not the memo's");
        assert.match(attention?.action ?? '', /none needed/);
        // An operator retry while waiting is recorded and tried at once (still down).
        await handles[1]!.signal(retryStepSignal, { by: 'alice', reason: 'provider said fixed' });
      },
    });
    outage = parked.outage;
    const statuses = await statusesOf(parked.handles);
    for (const s of statuses) {
      assert.equal(s.parked?.step, 'charge');
      assert.match(s.parked?.error ?? '', /ProviderUnreachableError.*ECONNREFUSED/);
    }
    assert.deepEqual(
      statuses[1]!.operatorActions?.map((a) => `${a.action}:${a.by}:${a.reason}`),
      ['retry:alice:provider said fixed'],
    );

    // With no worker up, the server alone still says what is wrong and what to do.
    await env.stopWorker();
    for (const h of parked.handles) {
      const description = await h.describe();
      assert.equal(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE.step), 'needs_attention');
      const attention = description.memo?.[ATTENTION_MEMO] as Attention | undefined;
      assert.equal(attention?.state, 'parked');
      assert.equal(attention?.step, 'charge');
      assert.match(attention?.cause ?? '', /ProviderUnreachableError.*ECONNREFUSED/);
      assert.match(attention?.action ?? '', /orders retry/);
      assert.ok(attention?.since);
    }
    await outage.start();
    assert.equal((await env.ledger(parked.orders[0]!.orderId)).charges.length, 0, 'never charged');
  });

  it('a cancellation of a completed order waits out the outage and refunds once', async () => {
    env = await createOrderEnv({
      transientRetryWindowMs: 3_600_000,
      transientRetryIntervalMs: 2000,
    });
    outage = providerOutage(env);
    const order = env.newOrder(await env.seedStock(2));
    const handle = await env.startOrder(order);
    assert.equal((await handle.result()).outcome, 'completed');
    await outage.stop();
    const cancellation = await env.client.workflow.start(orderCancellation, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`OrderCancelled:${order.orderId}`),
      args: [
        eventInputOf('OrderCancelled', order.orderId, { orderId: order.orderId, reason: 'r' }),
      ],
    });
    // The refund's fast round has failed (connection refused) and its waiting round, a second
    // activity that Temporal retries, has begun.
    await waitFor(
      async () => {
        const history = await cancellation.fetchHistory();
        const refunds = (history.events ?? []).filter(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'refundPayment',
        );
        return refunds.length >= 2;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'the cancellation to wait on the outage' },
    );
    await outage.start();
    const result = await cancellation.result();
    assert.equal(result.handledBy, 'compensated');
    assert.equal(result.refunded, true);
    assert.equal((await env.ledger(order.orderId)).refunds.length, 1);
  });
});
