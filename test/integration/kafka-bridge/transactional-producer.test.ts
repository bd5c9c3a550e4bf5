import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { readTopicsToEnd } from '../../../src/kafka/topic-reader';
import type { RunningBridge } from '../../../src/kafka-bridge/bridge';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { JavaTransactionalProducer } from '../../support/java-transactional-producer';
import { uniqueName } from '../../support/services';

/** `n` valid OrderPlaced events with fresh order IDs (keyed by order, headers envelope). */
function orders(n: number, lines = 1) {
  return Array.from({ length: n }, () => {
    const orderId = `o-${randomUUID()}`;
    return buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId, { lines }),
    });
  });
}

const idsOf = (records: Array<{ key: string }>) => records.map((r) => r.key);

/** Offsets a read_committed reader can reach (KafkaJS' admin lists offsets read_committed). */
async function stableEnds(h: BridgeHarness, topic: string): Promise<Map<number, number>> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((p) => [p.partition, Number(p.high)]));
  } finally {
    await admin.disconnect();
  }
}

/**
 * Waits until the read_committed ends are `expected` (partition → offset): every transaction
 * closed and its marker written and replicated. EndTxn returns to the producer once the
 * coordinator has logged the decision; the markers are written to the partitions after that,
 * and on three brokers the last stable offset moves only once the marker is replicated. A
 * test that read the ends straight after commit() could see the offset before the marker.
 */
async function waitForStableEnds(h: BridgeHarness, expected: Record<number, number>) {
  const want = JSON.stringify(expected);
  await waitFor(
    async () => JSON.stringify(Object.fromEntries(await stableEnds(h, h.topic))) === want,
    { timeoutMs: 30_000, what: `read_committed ends ${want}` },
  );
}

/** Partition 0's high watermark, read by a read_uncommitted consumer's first fetch. */
async function highWatermark(h: BridgeHarness): Promise<number> {
  const consumer = h.kafka.consumer({ groupId: uniqueName('hw'), readUncommitted: true });
  let hw: number | undefined;
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: h.topic, fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        hw ??= Number(batch.highWatermark);
      },
    });
    await waitFor(() => hw !== undefined, { timeoutMs: 30_000, what: 'a read_uncommitted fetch' });
    return hw!;
  } finally {
    await consumer.disconnect();
  }
}

/** The bridge's per-partition values of a gauge. */
async function gauge(bridge: RunningBridge, name: string): Promise<Map<string, number>> {
  const metric = bridge.metrics.registry.getSingleMetric(name);
  assert.ok(metric, `metric ${name}`);
  const { values } = await metric.get();
  return new Map(values.map((v) => [String(v.labels.partition), v.value]));
}

/** Aggregate IDs with a ledger row (a started workflow). */
async function startedIds(h: BridgeHarness): Promise<Set<string>> {
  const { rows } = await h.pool.query<{ id: string }>(
    `SELECT aggregate_id AS id FROM ${h.schema}.processed_events`,
  );
  return new Set(rows.map((r) => r.id));
}

/** Lag 0 and stall 0 on every partition the bridge reports, and it reports all of them. */
async function assertGaugesTrue(bridge: RunningBridge, partitions: number, when: string) {
  const lag = await gauge(bridge, 'onceflow_bridge_consumer_lag');
  const stalled = await gauge(bridge, 'onceflow_bridge_partition_stalled_seconds');
  assert.equal(lag.size, partitions, `${when}: lag reported for every partition`);
  for (const [p, v] of lag) assert.equal(v, 0, `${when}: lag of partition ${p}`);
  for (const [p, v] of stalled) assert.equal(v, 0, `${when}: stalled seconds of partition ${p}`);
}

describe('bridge: a transactional Java producer (committed and aborted transactions)', () => {
  let h: BridgeHarness;
  let java: JavaTransactionalProducer;
  afterEach(async () => {
    java.kill();
    await h.tearDown();
  });

  it('starts every committed order once, nothing of an aborted transaction, commits past the markers and keeps lag and stall at 0 through an idle minute', async function () {
    this.timeout(300_000);
    h = await new BridgeHarness().setUp(3);
    java = new JavaTransactionalProducer(h.config.kafka.brokers);
    const txn = uniqueName('txn');
    for (const name of ['a', 'b', 'c', 'd']) await java.open(name, `${txn}-${name}`);

    const committed: string[] = [];
    const aborted: Record<string, string[]> = {};
    const write = async (name: string, partition: number, records: ReturnType<typeof orders>) => {
      await java.send(name, h.topic, partition, records);
    };

    // Partition 0: one committed transaction; the partition ends with its commit marker.
    const p0 = orders(5);
    await java.begin('a');
    await write('a', 0, p0);
    await java.commit('a');
    committed.push(...idsOf(p0));

    // Partition 1: an aborted transaction carrying a record whose key is four zero bytes (what
    // an abort marker's key looks like), then a committed one, then an aborted one: the
    // partition ends with an abort marker.
    const p1Aborted = orders(4);
    await java.begin('a');
    await write('a', 1, [
      p1Aborted[0]!,
      { ...p1Aborted[1]!, key: '\u0000\u0000\u0000\u0000' },
      p1Aborted[2]!,
      p1Aborted[3]!,
    ]);
    await java.abort('a');
    aborted['a record keyed like an abort marker'] = idsOf(p1Aborted);
    const p1 = orders(5);
    await java.begin('a');
    await write('a', 1, p1);
    await java.commit('a');
    committed.push(...idsOf(p1));
    const p1Tail = orders(3);
    await java.begin('a');
    await write('a', 1, p1Tail);
    await java.abort('a');
    aborted['the last transaction of a partition'] = idsOf(p1Tail);

    // Partition 2: two producers' transactions interleaved and both aborted, the second one
    // larger than one fetch (the bridge fetches at most 1 MiB per partition), so a fetch
    // starts inside both aborted transactions; then a committed transaction.
    const p2Small = orders(1);
    const p2Large = orders(3000, 4);
    await java.begin('b');
    await write('b', 2, p2Small);
    await java.begin('c');
    await write('c', 2, p2Large);
    await java.abort('b');
    await java.abort('c');
    aborted['two producers interleaved'] = [...idsOf(p2Small), ...idsOf(p2Large)];
    const p2 = orders(5);
    await java.begin('d');
    await write('d', 2, p2);
    await java.commit('d');
    committed.push(...idsOf(p2));

    // Every record and marker: p0 5 + commit; p1 4 + abort, 5 + commit, 3 + abort; p2 1 and
    // 3000 + two aborts, 5 + commit.
    await waitForStableEnds(h, { 0: 6, 1: 15, 2: 3009 });
    const bridge = await h.startBridge();
    await h.waitUntilAllCommitted(120_000);

    const started = await startedIds(h);
    const leaked = (ids: string[]) => ids.filter((id) => started.has(id)).length;
    assert.deepEqual(
      Object.fromEntries(Object.entries(aborted).map(([what, ids]) => [what, leaked(ids)])),
      Object.fromEntries(Object.keys(aborted).map((what) => [what, 0])),
      'orders of aborted transactions started',
    );
    assert.deepEqual(
      [...started].sort(),
      [...committed].sort(),
      'exactly the committed orders started',
    );
    await waitFor(
      async () =>
        (await h.client.workflow.count(`TaskQueue = '${h.taskQueue}'`)).count === committed.length,
      { timeoutMs: 30_000, what: `${committed.length} workflows in visibility` },
    );
    const dlq = await stableEnds(h, `${h.topic}.dlq`);
    assert.equal(
      [...dlq.values()].reduce((s, n) => s + n, 0),
      0,
      'nothing dead-lettered',
    );

    // The committed offset is the log end, markers included: every partition ends with one.
    const ends = await h.endOffsets();
    const offsets = await h.committedOffsets();
    for (const [p, end] of ends) {
      assert.equal(offsets.get(p), end, `partition ${p} committed to its end`);
    }
    await assertGaugesTrue(bridge, 3, 'caught up');

    // An idle minute: nothing moves, nothing reads as lag or stall.
    const idleUntil = Date.now() + 60_000;
    while (Date.now() < idleUntil) {
      await assertGaugesTrue(
        bridge,
        3,
        `idle, ${Math.round((idleUntil - Date.now()) / 1000)} s left`,
      );
      await new Promise((r) => setTimeout(r, 5_000));
    }
    assert.deepEqual(await h.committedOffsets(), offsets, 'offsets unchanged while idle');

    // Readers of the topic (reconcile, dlq list) reach the end past the markers and see only
    // committed records.
    const seen: string[] = [];
    await readTopicsToEnd(h.kafka, [h.topic], (_t, _p, m) => seen.push(m.key!.toString()), {
      groupId: uniqueName('reader'),
      timeoutMs: 30_000,
    });
    assert.deepEqual(seen.sort(), [...committed].sort(), 'the reader sees the committed records');
  });

  it('does not count an open transaction as lag or stall, and starts its orders once it commits', async function () {
    this.timeout(180_000);
    h = await new BridgeHarness().setUp(1);
    java = new JavaTransactionalProducer(h.config.kafka.brokers);
    await java.open('a', uniqueName('txn'));
    const before = orders(3);
    await java.begin('a');
    await java.send('a', h.topic, 0, before);
    await java.commit('a');
    const bridge = await h.startBridge();
    await h.waitUntilAllCommitted(60_000);

    // A transaction stays open (as Flink's does until its checkpoint); a plain producer's
    // records land behind it. Neither is readable with read_committed until it closes.
    const open = orders(10);
    await java.begin('a');
    await java.send('a', h.topic, 0, open);
    const behind = orders(2);
    await h.produce(behind);
    // 3 records and their commit marker are readable; 10 + 2 records wait behind the open one.
    assert.equal((await stableEnds(h, h.topic)).get(0), 4, 'last stable offset');
    assert.equal(await highWatermark(h), 16, 'high watermark');
    const watchUntil = Date.now() + 15_000;
    while (Date.now() < watchUntil) {
      await assertGaugesTrue(bridge, 1, 'transaction open');
      await new Promise((r) => setTimeout(r, 1_000));
    }
    assert.equal((await startedIds(h)).size, 3, 'nothing of the open transaction started');

    await java.commit('a');
    // 3 + marker, the 10 of the transaction, the 2 behind it, and its commit marker.
    await waitForStableEnds(h, { 0: 17 });
    await h.waitUntilAllCommitted(60_000);
    const started = await startedIds(h);
    for (const id of [...idsOf(before), ...idsOf(open), ...idsOf(behind)])
      assert.ok(started.has(id), `${id} started`);
    assert.equal(started.size, 15);
    await assertGaugesTrue(bridge, 1, 'after the commit');
  });
});
