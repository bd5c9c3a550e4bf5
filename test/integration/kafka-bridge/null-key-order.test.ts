import { strict as assert } from 'node:assert';
import { Client } from '@temporalio/client';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderCancelled, sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { uniqueName } from '../../support/services';

/**
 * How long the order's start is held open, at most, for a cancellation handled concurrently
 * to overtake it. Not a synchronisation: it is the span over which the test watches for
 * something that must NOT happen. A bridge running the two messages concurrently calls the
 * cancellation's start within milliseconds of the order's (both are in one fetched batch,
 * already translated and looked up), and the hold then ends at once; a correct bridge never
 * calls it, so the full span passes.
 */
const OVERTAKE_SPAN_MS = 500;

/**
 * Producers that send no key still put one aggregate's events on one partition in order;
 * the bridge must keep that order (issue 12: a cancellation overtaking its order found no
 * order and was dropped). The order's start is made slow, so a cancellation handled
 * concurrently (as every null-key message was) would start first.
 */
describe('bridge: per-aggregate order without a message key (real Kafka, Temporal, Postgres)', function () {
  this.timeout(120_000);
  let h: BridgeHarness;
  beforeEach(async () => {
    h = await new BridgeHarness().setUp(1);
  });
  afterEach(async () => {
    await h.tearDown();
  });

  it('starts a null-key cancellation only after its null-key order, even when the order start is slow', async () => {
    // Start calls in the order the bridge makes them; the order's start is held open until
    // the cancellation's is called (the bug) or the span passes.
    const calls: string[] = [];
    let cancellationCalled!: () => void;
    const overtaken = new Promise<void>((r) => (cancellationCalled = r));
    const slow = new Client({ connection: h.connection, namespace: h.config.temporal.namespace });
    const start = slow.workflow.start.bind(slow.workflow);
    slow.workflow.start = (async (type: string, options: never) => {
      calls.push(`begin ${type}`);
      if (type === 'orderCancellation') cancellationCalled();
      if (type === 'orderFulfillment')
        await Promise.race([overtaken, new Promise((r) => setTimeout(r, OVERTAKE_SPAN_MS))]);
      const handle = await start(type, options);
      calls.push(`end ${type}`);
      return handle;
    }) as typeof slow.workflow.start;
    await h.startBridge({ client: slow });

    const orderId = uniqueName('o');
    const placed = buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId),
    });
    const cancelled = buildEventMessage({
      eventType: 'OrderCancelled',
      aggregateId: orderId,
      aggregateVersion: 2,
      data: sampleOrderCancelled(orderId),
    });
    // No key, one partition, in order: what a keyless producer with one partition sends.
    await h.produce([
      { key: null, value: placed.value, headers: placed.headers, partition: 0 },
      { key: null, value: cancelled.value, headers: cancelled.headers, partition: 0 },
    ] as never);
    await h.waitUntilAllCommitted();
    assert.deepEqual(
      calls,
      [
        'begin orderFulfillment',
        'end orderFulfillment',
        'begin orderCancellation',
        'end orderCancellation',
      ],
      'the cancellation is started only after its order',
    );

    const order = await waitFor(
      () => h.describe(deriveWorkflowId('OrderPlaced', versionIdentity(orderId, 1))),
      { timeoutMs: 30_000, what: 'the order workflow' },
    );
    const cancellation = await waitFor(
      () => h.describe(deriveWorkflowId('OrderCancelled', versionIdentity(orderId, 2))),
      { timeoutMs: 30_000, what: 'the cancellation workflow' },
    );
    assert.ok(
      cancellation.startTime.getTime() >= order.startTime.getTime(),
      `cancellation started at ${cancellation.startTime.toISOString()}, before its order (${order.startTime.toISOString()})`,
    );
    assert.equal(await h.ledgerCount(), 2);
  });
});
