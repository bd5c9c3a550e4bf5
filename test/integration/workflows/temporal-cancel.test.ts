import { strict as assert } from 'node:assert';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { findClaim } from '../../../src/db/entity-claim-store';
import { SEARCH_ATTRIBUTE } from '../../../src/temporal/search-attributes';
import { createOrderEnv, type OrderEnv } from '../../support/order-env';
import { temporalCli } from '../../support/temporal-cli';

/**
 * Temporal's own cancellation (the Web UI's "Request Cancellation", `temporal workflow
 * cancel`, a batch cancel by query) is the saga's cancellation: an order charged and waiting
 * on a failing mail provider is refunded and released, its claim settled `cancelled`, and the
 * run closes as Canceled with Step `cancelled`.
 */
describe("Temporal's own cancel unwinds the saga (temporal CLI, batch; real stack)", function () {
  this.timeout(240_000);
  let env: OrderEnv;
  before(async () => {
    // The mail provider fails for good: each order is charged, then waits (1 h window).
    env = await createOrderEnv({ transientRetryWindowMs: 60 * 60_000 });
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
  });
  after(async () => {
    await env.close();
  });

  /** Orders charged and waiting on the mail provider, with their stock. */
  async function chargedAndWaiting(count: number) {
    const sku = await env.seedStock(10 * count);
    const orders = Array.from({ length: count }, () => env.newOrder(sku));
    const handles = await Promise.all(orders.map((o) => env.startOrder(o)));
    for (const h of handles)
      await env.waitForStatus(h, (s) => s.waiting?.step === 'email', 'waiting on the mail API');
    return { sku, orders, handles };
  }

  async function assertUnwound(handle: WorkflowHandle, orderId: string) {
    const err = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof WorkflowFailedError, `${orderId} closed otherwise: ${String(err)}`);
    assert.ok(err.cause instanceof CancelledFailure, `${orderId}: ${String(err.cause)}`);
    const described = await handle.describe();
    assert.equal(described.status.name, 'CANCELLED');
    assert.equal(described.typedSearchAttributes.get(SEARCH_ATTRIBUTE.step), 'cancelled');
    const ledger = await env.ledger(orderId);
    assert.equal(ledger.charges.length, 1, `${orderId} charged once`);
    assert.equal(ledger.refunds.length, 1, `${orderId} refunded once`);
    assert.equal(ledger.refunds[0]!.amountMinor, ledger.charges[0]!.amountMinor);
    const claim = await findClaim(env.db.pool, { domain: 'orders', entityId: orderId });
    assert.equal(claim?.settled, 'cancelled');
    const status = await env.status(handle);
    assert.equal(status.outcome, 'cancelled');
    assert.match(status.operatorActions?.[0]?.by ?? '', /^Temporal cancellation/);
  }

  it('`temporal workflow cancel` refunds, releases and settles an order charged and waiting', async () => {
    const { sku, orders, handles } = await chargedAndWaiting(1);
    await temporalCli(['workflow', 'cancel', '--workflow-id', handles[0]!.workflowId]);
    await assertUnwound(handles[0]!, orders[0]!.orderId);
    assert.equal(await env.stockOf(sku), 10, 'stock released');
  });

  it('a batch cancel by query unwinds every order it selects', async () => {
    const { sku, orders, handles } = await chargedAndWaiting(3);
    await temporalCli([
      'workflow',
      'cancel',
      '--query',
      `TaskQueue = "${env.taskQueue}" AND ExecutionStatus = "Running"`,
      '--reason',
      'batch cancel in a test',
      '--yes',
    ]);
    for (const [i, h] of handles.entries()) await assertUnwound(h, orders[i]!.orderId);
    assert.equal(await env.stockOf(sku), 30, 'every reservation released');
  });
});
