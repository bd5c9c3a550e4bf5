import { strict as assert } from 'node:assert';
import { findClaim } from '../../../src/db/entity-claim-store';
import { payout } from '../../../src/domains/payouts/workflows';
import { waitFor } from '../../../src/util/wait';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../support/order-env';
import { runOps } from '../../support/ops-cli';
import { newPayout } from '../../support/payout-data';
import { uniqueName } from '../../support/services';

/**
 * Terminate runs no code: no compensation, no settlement. `show` of a terminated run says what
 * it left undone and the command that finishes it; that `cancel` starts a compensating run
 * that undoes it with the entity's own keys and settles the claim.
 */
describe('ops CLI: a terminated run (real stack)', function () {
  this.timeout(180_000);
  let env: OrderEnv;
  let cliEnv: Record<string, string>;
  before(async () => {
    env = await createOrderEnv({ transientRetryWindowMs: 60 * 60_000 });
    cliEnv = { PROVIDERS_URL: env.providers.url, DATABASE_SCHEMA: env.db.schema };
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
  });
  after(async () => {
    await env.close();
  });

  it('orders show says what a terminated order left undone; orders cancel undoes it once', async () => {
    const sku = await env.seedStock(5);
    const order = env.newOrder(sku);
    const handle = await env.startOrder(order);
    await env.waitForStatus(handle, (s) => s.waiting?.step === 'email', 'charged, waiting on mail');
    await handle.terminate('an operator pressed Terminate');

    const shown = await runOps(['orders', 'show', '--', order.orderId], cliEnv);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(
      shown.stdout,
      /terminated: it ran no compensation \(done and not undone: reserve, charge; claim not settled\)/,
    );
    assert.ok(
      shown.stdout.includes(`npx onceflow orders cancel -- ${order.orderId}`),
      shown.stdout,
    );

    const cancel = await runOps(['orders', 'cancel', '--by', 'ada', '--', order.orderId], cliEnv);
    assert.equal(cancel.code, 0, cancel.stderr);
    assert.match(cancel.stdout, /was TERMINATED: started .*:cancel/);
    const compensating = env.client.workflow.getHandle(`${handle.workflowId}:cancel`);
    await compensating.result();
    const ledger = await env.ledger(order.orderId);
    assert.equal(ledger.refunds.length, 1, 'refunded under the order key');
    assert.equal(ledger.refunds[0]!.idempotencyKey, `order:${order.orderId}:refund`);
    assert.equal(await env.stockOf(sku), 5, 'released');
    const claim = await findClaim(env.db.pool, { domain: 'orders', entityId: order.orderId });
    assert.equal(claim?.settled, 'refunded');

    const again = await runOps(['orders', 'cancel', '--', order.orderId], cliEnv);
    assert.notEqual(again.code, 0, 'a second cancel finds nothing left to undo');
    assert.match(again.stderr, /nothing is left to undo/);
  });

  it('payouts cancel of a terminated payout reverses its transfer once', async () => {
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const data = newPayout();
    const handle = await env.client.workflow.start(payout, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`PayoutRequested:${data.payoutId}`),
      args: [eventInputOf('PayoutRequested', data.payoutId, data)],
    });
    await waitFor(async () => (await env.ledger(data.payoutId)).charges.length === 1, {
      timeoutMs: 60_000,
      what: 'the transfer',
    });
    await handle.terminate('pressed Terminate');
    const cancel = await runOps(['payouts', 'cancel', '--', data.payoutId], cliEnv);
    assert.equal(cancel.code, 0, cancel.stderr);
    await env.client.workflow.getHandle(`${handle.workflowId}:cancel`).result();
    const ledger = await env.ledger(data.payoutId);
    assert.deepEqual(
      ledger.refunds.map((r) => r.idempotencyKey),
      [`payout:${data.payoutId}:reverse`],
    );
    const claim = await findClaim(env.db.pool, { domain: 'payouts', entityId: data.payoutId });
    assert.equal(claim?.settled, 'unwound');
  });
});
