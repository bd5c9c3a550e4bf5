import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import type { IHeaders } from 'kafkajs';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import { BridgeHarness } from '../../support/bridge-harness';

type Raw = { key: string | null; value: string | Buffer | null; headers?: IHeaders };

function valid(orderId: string, version = 1): Raw {
  return buildEventMessage({
    eventType: 'OrderPlaced',
    aggregateId: orderId,
    aggregateVersion: version,
    data: sampleOrderPlaced(orderId),
  });
}

/** One poison message per kind, each for its own order. */
function poisonKinds(): Array<{ reason: string; message: Raw }> {
  const id = () => `o-${randomUUID()}`;
  const withHeaders = (orderId: string, extra: IHeaders, value: string): Raw => ({
    key: orderId,
    value,
    headers: {
      'event-id': randomUUID(),
      'event-type': 'OrderPlaced',
      'aggregate-id': orderId,
      'aggregate-version': '1',
      ...extra,
    },
  });
  const a = id();
  const b = id();
  const c = id();
  const d = id();
  const e = id();
  const f = id();
  const g = id();
  return [
    { reason: 'unparseable', message: withHeaders(a, {}, '{not json') },
    {
      reason: 'missing-identity',
      message: {
        key: b,
        value: JSON.stringify({ data: sampleOrderPlaced(b) }),
        headers: { 'event-type': 'OrderPlaced' },
      },
    },
    {
      reason: 'validation-failed',
      message: withHeaders(
        c,
        {},
        JSON.stringify({ data: { ...sampleOrderPlaced(c), totalMinor: 1 } }),
      ),
    },
    {
      reason: 'unknown-event-type',
      message: withHeaders(d, { 'event-type': 'OrderTeleported' }, JSON.stringify({ data: {} })),
    },
    {
      reason: 'oversized',
      message: withHeaders(
        e,
        {},
        JSON.stringify({ data: sampleOrderPlaced(e), pad: 'x'.repeat(5000) }),
      ),
    },
    {
      reason: 'header-body-mismatch',
      message: withHeaders(
        f,
        {},
        JSON.stringify({ eventType: 'OrderCancelled', data: sampleOrderPlaced(f) }),
      ),
    },
    {
      reason: 'key-mismatch',
      message: {
        ...withHeaders(g, {}, JSON.stringify({ data: sampleOrderPlaced(g) })),
        key: 'someone-else',
      },
    },
  ];
}

describe('bridge: poison goes to the DLQ and never blocks its partition', () => {
  let h: BridgeHarness;
  beforeEach(async () => {
    // One partition, so "the next message in the same partition" is every next message.
    h = await new BridgeHarness({ maxMessageBytes: 4096 }).setUp(1);
  });
  afterEach(async () => {
    await h.tearDown();
  });

  it('dead-letters each poison kind with its reason and source, and starts the valid message after it', async () => {
    const kinds = poisonKinds();
    const followers = kinds.map(() => `o-${randomUUID()}`);
    await h.produce(kinds.flatMap((k, i) => [k.message, valid(followers[i]!)]));
    await h.startBridge();
    await h.waitUntilAllCommitted();

    // Different keys are handled concurrently, so DLQ order is not offset order.
    const dlq = (await h.readDlq()).sort(
      (x, y) => Number(x.headers['dlq-source-offset']) - Number(y.headers['dlq-source-offset']),
    );
    assert.deepEqual(
      dlq.map((m) => m.headers['dlq-reason']),
      kinds.map((k) => k.reason),
    );
    dlq.forEach((m, i) => {
      assert.equal(m.headers['dlq-source-topic'], h.topic);
      assert.equal(m.headers['dlq-source-partition'], '0');
      assert.equal(m.headers['dlq-source-offset'], String(2 * i), 'offset of the poison message');
      assert.ok(m.headers['dlq-error'] && m.headers['dlq-error'].length > 0, 'an explanation');
      assert.ok(!Number.isNaN(Date.parse(m.headers['dlq-first-failed-at']!)));
      const original = kinds[i]!.message;
      assert.equal(m.key, original.key, 'original key kept');
      assert.equal(m.value, original.value?.toString(), 'original value kept');
    });
    assert.match(dlq[2]!.headers['dlq-error']!, /data\.totalMinor: must equal the sum/);
    for (const orderId of followers) {
      assert.ok(
        await h.describe(deriveWorkflowId('OrderPlaced', versionIdentity(orderId, 1))),
        `${orderId} started`,
      );
    }
    assert.equal(await h.ledgerCount(), followers.length);
  });

  it('judges versions per aggregate across event types: an order placed after its cancellation is stale', async () => {
    const late = `o-${randomUUID()}`;
    const normal = `o-${randomUUID()}`;
    const cancel = (orderId: string, version: number) =>
      buildEventMessage({
        eventType: 'OrderCancelled',
        aggregateId: orderId,
        aggregateVersion: version,
        data: { orderId, reason: 'r' },
      });
    // `late`: the cancellation (v2) overtook the placement (v1); `normal`: v1 then v2.
    await h.produce([cancel(late, 2), valid(late, 1), valid(normal, 1), cancel(normal, 2)]);
    await h.startBridge();
    await h.waitUntilAllCommitted();
    const [dlq, ...more] = await h.readDlq();
    assert.equal(more.length, 0, 'one DLQ record, written once');
    assert.equal(dlq!.headers['dlq-reason'], 'stale-version');
    assert.equal(dlq!.key, late);
    assert.equal(
      await h.describe(deriveWorkflowId('OrderPlaced', versionIdentity(late, 1))),
      undefined,
      'never fulfilled',
    );
    assert.ok(await h.describe(deriveWorkflowId('OrderPlaced', versionIdentity(normal, 1))));
    assert.ok(await h.describe(deriveWorkflowId('OrderCancelled', versionIdentity(normal, 2))));
  });

  it('dead-letters a stale version and still starts newer versions of the aggregate', async () => {
    const orderId = `o-${randomUUID()}`;
    const cancel = (version: number) =>
      buildEventMessage({
        eventType: 'OrderCancelled',
        aggregateId: orderId,
        aggregateVersion: version,
        data: { orderId, reason: `r${version}` },
      });
    await h.produce([cancel(2), cancel(1), cancel(3)]);
    await h.startBridge();
    await h.waitUntilAllCommitted();
    const [dlq, ...more] = await h.readDlq();
    assert.equal(more.length, 0, 'one DLQ record, written once');
    assert.equal(dlq!.headers['dlq-reason'], 'stale-version');
    assert.equal(dlq!.headers['dlq-source-offset'], '1');
    assert.ok(await h.describe(deriveWorkflowId('OrderCancelled', versionIdentity(orderId, 2))));
    assert.ok(await h.describe(deriveWorkflowId('OrderCancelled', versionIdentity(orderId, 3))));
    assert.equal(
      await h.describe(deriveWorkflowId('OrderCancelled', versionIdentity(orderId, 1))),
      undefined,
    );
  });
});
