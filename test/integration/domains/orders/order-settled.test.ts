import { strict as assert } from 'node:assert';
import { temporal } from '@temporalio/proto';
import { deleteRun, expireProviderKeys } from '../../../../harness/chaos/forget';
import { createLedgerStore } from '../../../../src/db/ledger-store';
import { findOrderClaim } from '../../../../src/domains/orders/order-claim-store';
import { orderCancellation, orderFulfillment } from '../../../../src/domains/orders/workflows';
import {
  cancelOrderSignal,
  type OrderResult,
} from '../../../../src/domains/orders/workflows/order-definitions';
import { runOps } from '../../../support/ops-cli';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../../support/order-env';
import { TEST_ADMIN_TOKEN } from '../../../support/providers';
import { uniqueName } from '../../../support/services';

/**
 * Every way an order settles, then every memory but its claim forgotten (ledger reaped, run
 * deleted, provider keys expired) and the same workflow ID started again, as the bridge
 * starts it when it reads the event again: the new run acts on nothing. And the operator's
 * own repeat, a Temporal reset of the owner, still works and is recorded.
 */
describe('settled orders stay settled; a reset of the owner still acts (real Temporal, Postgres, providers)', function () {
  this.timeout(240_000);
  let env: OrderEnv;
  beforeEach(async () => {
    env = await createOrderEnv();
  });
  afterEach(async () => {
    await env.close();
  });

  /** What a re-read meets: ledger reaped, run deleted, provider keys forgotten. */
  async function letTimePass(orderId: string, workflowId: string): Promise<string> {
    await env.db.pool.query(
      `UPDATE processed_events SET first_seen_at = now() - interval '40 days'
        WHERE aggregate_id = $1`,
      [orderId],
    );
    await createLedgerStore(env.db.pool, { schema: env.db.schema }).reapOlderThan(30);
    const deleted = await deleteRun(env.client, workflowId);
    await expireProviderKeys(env.providers.url, TEST_ADMIN_TOKEN, { prefix: `order:${orderId}:` });
    return deleted;
  }

  /** The same workflow ID with the same input, as the bridge starts it for a re-read event. */
  async function startAgain(workflowId: string, order: Parameters<OrderEnv['startOrder']>[0]) {
    return env.client.workflow.execute(orderFulfillment, {
      taskQueue: env.taskQueue,
      workflowId,
      args: [eventInputOf('OrderPlaced', order.orderId, order)],
    });
  }

  it('cancelled in flight (charged, then refunded by its owner): a re-read charges and refunds nothing', async () => {
    await env.setFaults({ endpoints: { emails: { latencyMs: 3000 } } });
    const sku = await env.seedStock(6);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    await env.waitForStatus(
      handle,
      (s) => s.recoveryPoints.some((p) => p.step === 'charge'),
      'the charge recovery point',
    );
    await handle.signal(cancelOrderSignal, { reason: 'changed my mind' });
    assert.equal((await handle.result()).outcome, 'cancelled');
    await env.setFaults({ endpoints: { emails: {} } });
    const claim = await findOrderClaim(env.db.pool, order.orderId);
    assert.equal(claim?.settled, 'cancelled');
    assert.equal(claim?.runId, (await handle.describe()).runId);
    const before = await env.ledger(order.orderId);
    assert.equal(before.charges.length, 1);
    assert.equal(before.refunds.length, 1);

    await letTimePass(order.orderId, handle.workflowId);
    const again = await startAgain(handle.workflowId, order);
    assert.equal(again.outcome, 'duplicate', JSON.stringify(again));
    assert.equal(again.settled, 'cancelled');
    // The OrderCancelled read again (its first run is gone too): nothing left to undo.
    const replayed = await env.client.workflow.execute(orderCancellation, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`OrderCancelled:${order.orderId}`),
      args: [
        eventInputOf('OrderCancelled', order.orderId, { orderId: order.orderId, reason: 'r' }),
      ],
    });
    assert.equal(replayed.handledBy, 'already-settled');
    const after = await env.ledger(order.orderId);
    assert.equal(after.charges.length, 1, 'no second charge');
    assert.equal(after.refunds.length, 1, 'no second refund');
    assert.equal(after.emails.length, before.emails.length, 'no further email');
    assert.equal(await env.stockOf(sku), 6, 'stock back once');
  });

  it('rejected (out of stock) and declined: a re-read after a restock still acts on nothing', async () => {
    const sku = await env.seedStock(1);
    const rejected = env.newOrder(sku);
    const rejectedRun = await env.startOrder(rejected);
    assert.equal((await rejectedRun.result()).outcome, 'rejected');
    assert.equal((await findOrderClaim(env.db.pool, rejected.orderId))?.settled, 'rejected');
    const declined = env.newOrder(sku, {
      customerId: 'declined-settled',
      items: [{ sku, quantity: 1, unitPriceMinor: 2500 }],
    });
    const declinedRun = await env.startOrder(declined);
    assert.equal((await declinedRun.result()).outcome, 'declined');
    assert.equal((await findOrderClaim(env.db.pool, declined.orderId))?.settled, 'declined');

    await env.db.pool.query('UPDATE inventory_stock SET available = 100 WHERE sku = $1', [sku]);
    for (const [order, run] of [
      [rejected, rejectedRun],
      [declined, declinedRun],
    ] as const) {
      await letTimePass(order.orderId, run.workflowId);
      const again = await startAgain(run.workflowId, order);
      assert.equal(again.outcome, 'duplicate', `${order.orderId}: ${JSON.stringify(again)}`);
      const ledger = await env.ledger(order.orderId);
      assert.equal(ledger.charges.length + ledger.emails.length, 0, 'nothing charged or sent');
    }
    assert.equal(await env.stockOf(sku), 100, 'nothing reserved after the restock');
  });

  it('a Temporal reset of the owner is still the owner: it runs again, is recorded, and repeats effects once keys expired', async () => {
    const sku = await env.seedStock(10);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    assert.equal((await handle.result()).outcome, 'completed');
    const firstRunId = (await handle.describe()).runId;
    const settledAt = (await findOrderClaim(env.db.pool, order.orderId))?.settledAt;

    /** Resets the current run to its first workflow task: every step runs again. */
    const reset = async (reason: string): Promise<string> => {
      const history = await env.client.workflow.getHandle(handle.workflowId).fetchHistory();
      const first = history.events!.find(
        (e) => e.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
      )!;
      const { runId } = await env.client.workflowService.resetWorkflowExecution({
        namespace: env.client.options.namespace,
        workflowExecution: { workflowId: handle.workflowId },
        reason,
        workflowTaskFinishEventId: first.eventId,
        requestId: uniqueName('reset'),
      });
      const result = (await env.client.workflow
        .getHandle(handle.workflowId, runId!)
        .result()) as OrderResult;
      assert.equal(result.outcome, 'completed', `${reason}: ${JSON.stringify(result)}`);
      return runId!;
    };

    // Within the provider's retention the repeated steps replay their stored answers.
    const firstReset = await reset('ops: re-run order after a fix');
    let ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length, 1);
    assert.equal(ledger.emails.length, 1);
    const claim = await findOrderClaim(env.db.pool, order.orderId);
    assert.equal(claim?.runId, firstRunId, 'a reset keeps the first run ID');
    assert.equal(claim?.settled, 'completed');
    assert.ok(claim?.reopenedAt && claim.settledAt! > settledAt!, 'reopened, then settled again');
    const status = await env.status(env.client.workflow.getHandle(handle.workflowId, firstReset));
    const resets = (status.operatorActions ?? []).filter((a) => a.action === 'reset');
    assert.equal(resets.length, 1, JSON.stringify(status.operatorActions));
    assert.match(resets[0]!.reason ?? '', new RegExp(`reset from run ${firstRunId}`));

    // After the provider forgot the keys, the operator's reset charges and mails again: an
    // operator action that repeats an effect keeps working (the claim does not block the
    // owner's own chain), and the audit says who asked.
    await expireProviderKeys(env.providers.url, TEST_ADMIN_TOKEN, {
      prefix: `order:${order.orderId}:`,
    });
    await reset('ops: charge again, the first charge was voided at the bank');
    ledger = await env.ledger(order.orderId);
    assert.equal(ledger.charges.length, 2, 'the reset repeated the charge, as asked');
    assert.equal(ledger.emails.length, 2);
    const shown = await runOps(['orders', 'show', order.orderId], {
      PROVIDERS_URL: env.providers.url,
      DATABASE_SCHEMA: env.db.schema,
    });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /reset by history-service: ops: charge again/);
    assert.match(shown.stdout, /reopened by a reset at /);
  });
});
