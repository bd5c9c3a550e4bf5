import { strict as assert } from 'node:assert';
import { DEFAULT_ROUTES } from '../../src/kafka-bridge/routes';
import { translateMessage } from '../../src/kafka-bridge/translate';
import { generateOrderStream } from '../../src/tools/order-stream';

const toRaw = (r: { key: string; value: string; headers: Record<string, unknown> }) => ({
  key: Buffer.from(r.key),
  value: Buffer.from(r.value),
  headers: r.headers as Record<string, string>,
});

describe('order stream generator (npm run produce)', () => {
  it('is reproducible from its seed', () => {
    const a = generateOrderStream({ orders: 50, seed: 7, duplicateRate: 0.3, poisonRate: 0.2 });
    const b = generateOrderStream({ orders: 50, seed: 7, duplicateRate: 0.3, poisonRate: 0.2 });
    assert.deepEqual(a, b);
    assert.notDeepEqual(
      a.records,
      generateOrderStream({ orders: 50, seed: 8, duplicateRate: 0.3, poisonRate: 0.2 }).records,
    );
  });

  it('emits contract-conforming events, with exactly the poison it counts', () => {
    const stream = generateOrderStream({
      orders: 200,
      seed: 3,
      duplicateRate: 0.2,
      cancelRate: 0.3,
      poisonRate: 0.1,
      reemitRate: 0.1,
    });
    const verdicts = stream.records.map((r) =>
      translateMessage(toRaw(r), DEFAULT_ROUTES, { maxBytes: 1 << 20 }),
    );
    assert.equal(verdicts.filter((v) => v.kind === 'poison').length, stream.counts.poison);
    assert.ok(
      stream.counts.poison > 0 && stream.counts.duplicates > 0 && stream.counts.cancels > 0,
    );
    assert.equal(
      stream.records.length,
      200 +
        stream.counts.duplicates +
        stream.counts.reemits +
        stream.counts.cancels +
        stream.counts.poison,
    );
    const identities = new Set(verdicts.flatMap((v) => (v.kind === 'start' ? [v.identity] : [])));
    assert.equal(
      identities.size,
      200 + stream.counts.cancels,
      'one identity per order and per cancellation',
    );
  });

  it('plants stale versions: the cancellation first, then a placement the bridge must refuse', () => {
    const stream = generateOrderStream({
      orders: 300,
      seed: 5,
      staleRate: 0.1,
      duplicateRate: 0.2,
    });
    assert.ok(stream.counts.stale > 0);
    assert.equal(stream.staleOrderIds.length, stream.counts.stale);
    assert.equal(stream.counts.orders + stream.counts.stale, 300);
    for (const orderId of stream.staleOrderIds) {
      assert.equal(stream.orders.has(orderId), false, 'a stale order is never to be fulfilled');
      const own = stream.records.filter((r) => r.key === orderId);
      const first = own.findIndex((r) => r.headers['event-type'] === 'OrderCancelled');
      const placed = own.findIndex((r) => r.headers['event-type'] === 'OrderPlaced');
      assert.ok(first >= 0 && placed > first, `${orderId}: cancellation before placement`);
    }
  });

  it('leaves streams without stale versions exactly as their seeds made them', () => {
    const options = { orders: 80, seed: 11, duplicateRate: 0.2, cancelRate: 0.2 };
    assert.deepEqual(
      generateOrderStream({ ...options, staleRate: 0 }).records,
      generateOrderStream(options).records,
    );
  });
});
