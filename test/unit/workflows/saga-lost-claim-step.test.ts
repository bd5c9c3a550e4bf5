import { strict as assert } from 'node:assert';
import { runSaga } from '../../../src/workflows/saga';
import { scriptedRuntime } from '../../support/emulator/runtime';
import type { SagaDefinition } from '../../../src/workflows/saga-types';
import type { ActivityMap } from '../../../src/workflows/saga-types';
import { ORDER_SAGA } from '../../../src/domains/orders/workflows/order-fulfillment';
import type { EventWorkflowInput } from '../../../src/events/workflow-input';
import type { OrderPlacedData } from '../../../src/domains/orders/order-events';

const ORDER_ID = 'order-134';
const WORKFLOW_ID = `OrderPlaced:v:${ORDER_ID}@1`;
const RUN_ID = 'run-1';

/** The order saga as a workflow runs it. */
const ORDERS = {
  ...ORDER_SAGA,
} as unknown as SagaDefinition<OrderPlacedData, ActivityMap, object>;

const input: EventWorkflowInput<OrderPlacedData> = {
  data: {
    orderId: ORDER_ID,
    customerId: 'c-1',
    email: 'c1@example.com',
    items: [{ sku: 'sku-1', quantity: 1, unitPriceMinor: 1250 }],
    totalMinor: 1250,
    currency: 'EUR',
  } as OrderPlacedData,
  event: {
    eventId: 'e-1',
    eventType: 'OrderPlaced',
    identity: `v:${ORDER_ID}@1`,
    aggregateId: ORDER_ID,
    aggregateVersion: 1,
    fingerprint: 'f'.repeat(64),
    source: { topic: 't', partition: 0, offset: '0' },
  },
};

/**
 * A run whose cancelOrder signal is already in history when its first workflow task runs
 * (as after a workflow task that timed out while its local reserve committed), and whose
 * claimCancelledOrder answers `claim`. Records every activity call.
 */
function scriptedRun(claim: Record<string, unknown>) {
  const s = scriptedRuntime(
    (call) => {
      if (call.activity === 'claimCancelledOrder') return { kind: 'owner', claim };
      if (call.activity === 'releaseInventory') return { released: true, repeated: false };
      return {};
    },
    { workflowId: WORKFLOW_ID },
  );
  s.signalBeforeStart('cancelOrder', { reason: 'customer request', by: 'test' });
  return { run: () => runSaga(ORDERS, input, s.runtime), calls: s.calls };
}

const ownClaim = (extra: Record<string, unknown>) => ({
  workflowId: WORKFLOW_ID,
  runId: RUN_ID,
  fingerprint: 'f'.repeat(64),
  claimedAt: '2026-11-24T22:41:09Z',
  ...extra,
});

describe('saga: cancelled before its claiming step reached history', () => {
  it('releases the reservation a lost reserve committed with its claim (orders 134, 178, ... of seed 19)', async () => {
    // The claim is this run's, not settled: reserveInventory committed it with the
    // reservation, but its result never reached history.
    const { run, calls } = scriptedRun(ownClaim({}));
    const result = await run();
    assert.equal(result.outcome, 'cancelled');
    const names = calls.map((c) => c.activity);
    assert.deepEqual(names, ['claimCancelledOrder', 'releaseInventory', 'settleOrder']);
    const release = calls[1]!.input as { reservationKey: string; ownerWorkflowId: string };
    assert.equal(release.reservationKey, `order:${ORDER_ID}:reserve`);
    assert.equal(release.ownerWorkflowId, WORKFLOW_ID);
  });

  it('releases nothing when the claim was written just now as cancelled (nothing reserved)', async () => {
    const { run, calls } = scriptedRun(
      ownClaim({ cancelledAt: '2026-11-24T22:42:20Z', settled: 'cancelled', settledAt: 'x' }),
    );
    assert.equal((await run()).outcome, 'cancelled');
    assert.deepEqual(
      calls.map((c) => c.activity),
      ['claimCancelledOrder', 'settleOrder'],
    );
  });
});
