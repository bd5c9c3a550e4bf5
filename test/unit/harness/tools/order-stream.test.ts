import { strict as assert } from 'node:assert';
import { eventIdentity, versionIdentity } from '../../../../src/events/identity';
import { DEFAULT_ROUTES } from '../../../../src/domains';
import { translateMessage, type StartCommand } from '../../../../src/events/translate';
import { generateOrderStream } from '../../../../harness/tools/order-stream';

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

  it('gives two runs of one seed (other prefixes) the same defects but no shared event ID', () => {
    const ids = (prefix: string) => {
      const stream = generateOrderStream({ orders: 300, seed: 19, prefix });
      const found = stream.records.flatMap((r) => {
        const id = r.headers?.['event-id'];
        return id === undefined ? [] : [String(id)];
      });
      return { counts: stream.counts, ids: new Set(found) };
    };
    const a = ids('demo-a-order');
    const b = ids('demo-b-order');
    assert.deepEqual(a.counts, b.counts);
    assert.ok(a.ids.size >= 300, `${a.ids.size} event IDs`);
    assert.deepEqual(
      [...a.ids].filter((id) => b.ids.has(id)),
      [],
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

  describe('producer mistakes', () => {
    const options = {
      orders: 300,
      seed: 9,
      duplicateRate: 0.2,
      reemitRate: 0.1,
      cancelRate: 0.3,
      poisonRate: 0.05,
      conflictRate: 0.05,
      resendRate: 0.1,
      versionBumpRate: 0.1,
      orderIdMismatchRate: 0.1,
    };
    const stream = generateOrderStream(options);
    const verdicts = stream.records.map((r) =>
      translateMessage(toRaw(r), DEFAULT_ROUTES, { maxBytes: 1 << 20 }),
    );
    const starts = verdicts.filter((v): v is StartCommand => v.kind === 'start');
    /** Distinct identities of an order's valid OrderPlaced events (what starts a workflow). */
    const placements = (orderId: string) => {
      const byIdentity = new Map<string, StartCommand>();
      for (const v of starts)
        if (
          v.eventType === 'OrderPlaced' &&
          v.aggregateId === orderId &&
          !byIdentity.has(v.identity)
        )
          byIdentity.set(v.identity, v);
      return [...byIdentity.values()];
    };

    it('plants each mistake and counts it', () => {
      const c = stream.counts;
      assert.ok(c.resends > 0 && c.versionBumps > 0 && c.orderIdMismatches > 0, JSON.stringify(c));
      assert.equal(
        stream.records.length,
        c.orders +
          c.duplicates +
          c.reemits +
          c.cancels +
          c.poison +
          c.conflicts +
          c.resends +
          c.versionBumps +
          c.orderIdMismatches,
      );
    });

    it('resends: two identical unversioned placements under fresh event IDs', () => {
      const resent = [...stream.orders.keys()].filter((id) =>
        placements(id).every((p) => p.aggregateVersion === undefined),
      );
      assert.equal(resent.length, stream.counts.resends);
      for (const orderId of resent) {
        const [a, b, ...rest] = placements(orderId);
        assert.equal(rest.length, 0, `${orderId}: exactly two placements`);
        assert.notEqual(a!.eventId, b!.eventId);
        assert.equal(
          a!.identity,
          eventIdentity(a!.eventId),
          'identity is the event ID without a version',
        );
        assert.notEqual(a!.workflowId, b!.workflowId, 'two workflows');
        assert.equal(a!.fingerprint, b!.fingerprint, 'identical data');
        assert.deepEqual(a!.data, stream.orders.get(orderId));
      }
    });

    it('version bumps: the same data as version 1 and 2, the cancellation then version 3', () => {
      const bumped = [...stream.orders.keys()].filter((id) =>
        placements(id).some((p) => p.aggregateVersion === 2),
      );
      assert.equal(bumped.length, stream.counts.versionBumps);
      for (const orderId of bumped) {
        const [v1, v2, ...rest] = placements(orderId);
        assert.equal(rest.length, 0);
        assert.deepEqual(
          [v1!.identity, v2!.identity],
          [versionIdentity(orderId, 1), versionIdentity(orderId, 2)],
        );
        assert.equal(v1!.fingerprint, v2!.fingerprint, 'identical data');
        const cancels = starts.filter(
          (v) => v.eventType === 'OrderCancelled' && v.aggregateId === orderId,
        );
        for (const c of cancels) assert.equal(c.aggregateVersion, 3, 'after the bump');
      }
      // Cancellations keep version 2 elsewhere, and none is refused as stale or conflicting.
      assert.ok(starts.some((v) => v.eventType === 'OrderCancelled' && v.aggregateVersion === 2));
    });

    it('orderId ≠ aggregateId: poison (validation-failed) naming an order of the stream', () => {
      const poison = verdicts.filter((v) => v.kind === 'poison');
      assert.equal(poison.length, stream.counts.poison + stream.counts.orderIdMismatches);
      const mismatches = poison.filter((v) => /must equal the aggregate ID/.test(v.error));
      assert.equal(mismatches.length, stream.counts.orderIdMismatches);
      for (const m of mismatches) {
        assert.equal(m.reason, 'validation-failed');
        const [, orderId] = /data\.orderId "([^"]+)"/.exec(m.error)!;
        assert.ok(stream.orders.has(orderId!), `${orderId} is an order of the stream`);
      }
    });

    it('starts exactly the workflows it expects: one per order, cancellation, resend and bump', () => {
      const identities = new Set(starts.map((v) => v.identity));
      // Identity conflicts share their original's identity; the bridge dead-letters them.
      assert.equal(identities.size, stream.expectedWorkflows);
      const c = stream.counts;
      assert.equal(stream.expectedWorkflows, c.orders + c.cancels + c.resends + c.versionBumps);
    });

    it('is seeded, and leaves streams without these mistakes as their seeds made them', () => {
      assert.deepEqual(generateOrderStream(options), stream);
      const base = { orders: 80, seed: 11, duplicateRate: 0.2, cancelRate: 0.2, reemitRate: 0.1 };
      assert.deepEqual(
        generateOrderStream({
          ...base,
          resendRate: 0,
          versionBumpRate: 0,
          orderIdMismatchRate: 0,
        }).records,
        generateOrderStream(base).records,
      );
    });
  });
});
