import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { deriveWorkflowId, fingerprint, versionIdentity } from '../../../src/events/identity';
import { createLedgerStore } from '../../../src/db/ledger-store';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import type { RunningBridge } from '../../../src/kafka-bridge/bridge';

async function counter(
  bridge: RunningBridge,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = await bridge.metrics.registry.getSingleMetric(name)!.get();
  return metric.values
    .filter((v) => Object.entries(labels).every(([k, val]) => v.labels[k] === val))
    .reduce((s, v) => s + v.value, 0);
}

describe('bridge: identity and deduplication (real Kafka, Temporal, Postgres)', function () {
  let h: BridgeHarness;
  beforeEach(async () => {
    h = await new BridgeHarness().setUp(3);
  });
  afterEach(async () => {
    await h.tearDown();
  });

  it('starts one workflow for an event delivered five times, counting four duplicates', async () => {
    const orderId = `o-${randomUUID()}`;
    const message = buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId),
    });
    const bridge = await h.startBridge();
    await h.produce([message, message, message]);
    await h.waitUntilAllCommitted();
    await h.produce([message, message]); // a later redelivery: answered by the ledger alone
    await h.waitUntilAllCommitted();

    const workflowId = deriveWorkflowId('OrderPlaced', versionIdentity(orderId, 1));
    const description = await h.describe(workflowId);
    assert.ok(description, 'the workflow exists');
    assert.equal(description.memo?.fingerprint, fingerprint(sampleOrderPlaced(orderId)));
    assert.equal(await h.ledgerCount(), 1);
    assert.equal(await counter(bridge, 'onceflow_bridge_started_total'), 1);
    assert.equal(await counter(bridge, 'onceflow_bridge_duplicates_total'), 4);
    assert.equal(await counter(bridge, 'onceflow_bridge_dlq_total'), 0);
  });

  it('treats one aggregateId@version under two event IDs as one workflow', async () => {
    const orderId = `o-${randomUUID()}`;
    const spec = {
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId),
    };
    const bridge = await h.startBridge();
    await h.produce([
      buildEventMessage({ ...spec, eventId: randomUUID() }),
      buildEventMessage({ ...spec, eventId: randomUUID() }, 'body'),
    ]);
    await h.waitUntilAllCommitted();
    assert.equal(await h.ledgerCount(), 1);
    assert.equal(await counter(bridge, 'onceflow_bridge_started_total'), 1);
    assert.equal(await counter(bridge, 'onceflow_bridge_duplicates_total'), 1);
  });

  it('dead-letters the same identity with different data as identity-conflict, leaving the first run untouched', async () => {
    const orderId = `o-${randomUUID()}`;
    const first = sampleOrderPlaced(orderId, { lines: 1 });
    const second = sampleOrderPlaced(orderId, { lines: 3 });
    const bridge = await h.startBridge();
    await h.produce([
      buildEventMessage({
        eventType: 'OrderPlaced',
        aggregateId: orderId,
        aggregateVersion: 1,
        data: first,
      }),
    ]);
    await h.waitUntilAllCommitted();
    const workflowId = deriveWorkflowId('OrderPlaced', versionIdentity(orderId, 1));
    const before = await h.describe(workflowId);

    await h.produce([
      buildEventMessage({
        eventType: 'OrderPlaced',
        aggregateId: orderId,
        aggregateVersion: 1,
        data: second,
      }),
    ]);
    await h.waitUntilAllCommitted();
    const [dlq, ...more] = await h.readDlq();
    assert.equal(more.length, 0, 'one DLQ record, written once');
    assert.equal(dlq!.headers['dlq-reason'], 'identity-conflict');
    assert.equal(dlq!.key, orderId);
    assert.equal(await counter(bridge, 'onceflow_bridge_conflicts_total'), 1);

    const after = await h.describe(workflowId);
    assert.equal(after?.runId, before?.runId, 'same run');
    assert.equal(after?.memo?.fingerprint, fingerprint(first), 'first payload kept');
    assert.equal(await h.ledgerCount(), 1);
  });

  it('also catches a conflict that only Temporal knows (ledger row missing)', async () => {
    const orderId = `o-${randomUUID()}`;
    const bridge = await h.startBridge();
    await h.produce([
      buildEventMessage({
        eventType: 'OrderPlaced',
        aggregateId: orderId,
        aggregateVersion: 1,
        data: sampleOrderPlaced(orderId, { lines: 1 }),
      }),
    ]);
    await h.waitUntilAllCommitted();
    await h.pool.query(`DELETE FROM ${h.schema}.processed_events`);
    const duplicate = buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId, { lines: 1 }),
    });
    const conflicting = buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId, { lines: 2 }),
    });
    await h.produce([duplicate]);
    await waitFor(
      async () =>
        (await counter(bridge, 'onceflow_bridge_duplicates_total', { source: 'temporal' })) === 1,
      { timeoutMs: 30_000, what: 'temporal duplicate' },
    );
    await h.pool.query(`DELETE FROM ${h.schema}.processed_events`);
    await h.produce([conflicting]);
    await h.waitUntilAllCommitted();
    const [dlq, ...more] = await h.readDlq();
    assert.equal(more.length, 0, 'one DLQ record, written once');
    assert.equal(dlq!.headers['dlq-reason'], 'identity-conflict');
    assert.equal(await counter(bridge, 'onceflow_bridge_started_total'), 1);
  });

  it('deduplicates an identity known only to the ledger, and the reaper trims old rows', async () => {
    const orderId = `o-${randomUUID()}`;
    const data = sampleOrderPlaced(orderId);
    const ledger = createLedgerStore(h.pool, { schema: h.schema });
    const workflowId = deriveWorkflowId('OrderPlaced', versionIdentity(orderId, 1));
    await ledger.recordStarted({
      identity: versionIdentity(orderId, 1),
      eventType: 'OrderPlaced',
      eventId: randomUUID(),
      aggregateId: orderId,
      aggregateVersion: 1,
      fingerprint: fingerprint(data),
      workflowId,
      runId: null,
      sourceTopic: h.topic,
      sourcePartition: 0,
      sourceOffset: '0',
    });
    const bridge = await h.startBridge();
    await h.produce([
      buildEventMessage({
        eventType: 'OrderPlaced',
        aggregateId: orderId,
        aggregateVersion: 1,
        data,
      }),
    ]);
    await h.waitUntilAllCommitted();
    assert.equal(await h.describe(workflowId), undefined, 'no Temporal call was made');
    assert.equal(
      await counter(bridge, 'onceflow_bridge_duplicates_total', { source: 'ledger' }),
      1,
    );

    await h.pool.query(
      `UPDATE ${h.schema}.processed_events SET first_seen_at = now() - interval '31 days'`,
    );
    assert.equal(await ledger.reapOlderThan(30), 1);
    assert.equal(await h.ledgerCount(), 0);
  });
});
