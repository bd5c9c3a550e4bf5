import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { findClaim } from '../../../src/db/entity-claim-store';
import { payout } from '../../../src/domains/payouts/workflows';
import { resolveStepSignal, retryStepSignal, type SagaStatus } from '../../../src/workflow';
import { waitFor } from '../../../src/util/wait';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../support/order-env';
import { newPayout } from '../../support/payout-data';
import { uniqueName } from '../../support/services';

/**
 * An operator's resolve of a parked claiming step claims the entity, or is refused with the
 * reason and the run stays parked: it never runs the saga unclaimed. The claim is parked here
 * by a table the step needs gone missing (a permanent cause), then brought back.
 */
describe('resolving a parked claim step claims or is refused (real stack)', function () {
  this.timeout(180_000);
  let env: OrderEnv;
  before(async () => {
    env = await createOrderEnv();
  });
  after(async () => {
    await env.close();
  });

  const rename = (from: string, to: string) =>
    env.db.pool.query(`ALTER TABLE "${env.db.schema}".${from} RENAME TO ${to}`);
  const parkedAt = (h: WorkflowHandle, step: string, query: string) =>
    waitFor(
      async () => {
        const s = await h.query<SagaStatus>(query);
        return s.parked?.step === step ? s : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, what: `parked at ${step}` },
    );
  const refusal = async (h: WorkflowHandle, query: string) =>
    waitFor(
      async () =>
        (await h.query<SagaStatus>(query)).operatorActions?.find((a) => a.refused)?.refused,
      { timeoutMs: 30_000, intervalMs: 100, what: 'the refused resolve recorded' },
    );

  it("the engine's claim: refused while it cannot claim, then claims the payout on resolve", async () => {
    const data = newPayout();
    await rename('entity_claims', 'entity_claims_away');
    const h = await env.client.workflow.start(payout, {
      taskQueue: env.taskQueue,
      workflowId: uniqueName(`PayoutRequested:${data.payoutId}`),
      args: [eventInputOf('PayoutRequested', data.payoutId, data)],
    });
    try {
      await parkedAt(h, 'claim', 'status');
      await h.signal(resolveStepSignal, { by: 'ada', reason: 'I checked' });
      assert.match((await refusal(h, 'status')) ?? '', /entity_claims.*does not exist/);
      assert.equal((await h.query<SagaStatus>('status')).parked?.step, 'claim', 'still parked');
      assert.equal((await env.ledger(data.payoutId)).charges.length, 0, 'nothing transferred');
    } finally {
      await rename('entity_claims_away', 'entity_claims');
    }
    await h.signal(resolveStepSignal, { by: 'ada', reason: 'database back' });
    assert.equal((await h.result()).outcome, 'completed');
    const claim = await findClaim(env.db.pool, { domain: 'payouts', entityId: data.payoutId });
    assert.equal(claim?.workflowId, h.workflowId, 'the resolve claimed it for this run');
    assert.equal(claim?.settled, 'completed');
  });

  it("a domain's claiming step (the reserve): a resolve without its claim is refused", async () => {
    const order = env.newOrder(await env.seedStock(3));
    await rename('inventory_reservations', 'inventory_reservations_away');
    const h = await env.startOrder(order);
    try {
      await parkedAt(h, 'reserve', 'orderStatus');
      await h.signal(resolveStepSignal, { by: 'ada', reason: 'looks reserved' });
      assert.match((await refusal(h, 'orderStatus')) ?? '', /reserve did not claim order/);
      assert.equal((await env.status(h)).parked?.step, 'reserve', 'still parked');
    } finally {
      await rename('inventory_reservations_away', 'inventory_reservations');
    }
    await h.signal(retryStepSignal, { by: 'ada', reason: 'table back' });
    assert.equal((await h.result()).outcome, 'completed');
    assert.equal((await env.ledger(order.orderId)).charges.length, 1);
  });
});
