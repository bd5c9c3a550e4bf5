import { strict as assert } from 'node:assert';
import { createHash, randomUUID } from 'node:crypto';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { DLQ_HEADER } from '../../../src/events/dlq-message';
import { DLQ_STUB_HEADER, type DlqStubValue } from '../../../src/kafka-bridge/dlq-stub';
import { decodeCommitMetadata } from '../../../src/kafka-bridge/commit-metadata';
import type { RunningBridge } from '../../../src/kafka-bridge/bridge';
import { ensureTopics } from '../../../src/kafka/topics';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness, type DlqRead } from '../../support/bridge-harness';
import { exitOf, spawnBridge } from '../../support/child-bridge';
import { TcpProxy } from '../../support/tcp-proxy';
import { CommitWatcher } from '../../support/commit-watcher';
import { setTopicConfig } from '../../support/topic-config';

/** A valid order event (key = its order ID). */
function order() {
  const orderId = `o-${randomUUID()}`;
  return buildEventMessage({
    eventType: 'OrderPlaced',
    aggregateId: orderId,
    aggregateVersion: 1,
    data: sampleOrderPlaced(orderId, { lines: 1 }),
  });
}

/** An unparseable event with a key of its own (its own group: handled beside the others). */
function poison(name: string) {
  return {
    key: `${name}-${randomUUID()}`,
    value: `{not json: ${name}`,
    headers: { 'event-type': 'OrderPlaced' },
  };
}

async function counter(
  bridge: RunningBridge,
  name: 'failedAttempts' | 'started' | 'dlq' | 'dlqStubs',
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await bridge.metrics[name].get();
  return values
    .filter((v) =>
      Object.entries(labels).every(([k, want]) => (v.labels as Record<string, string>)[k] === want),
    )
    .reduce((s, v) => s + v.value, 0);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sourceOffset = (r: DlqRead) => Number(r.headers[DLQ_HEADER.sourceOffset]);

/** DLQ copies per source offset. */
/** Partition 0's committed offset, and the offsets beyond it its metadata names as handled. */
async function committedWithMetadata(
  h: BridgeHarness,
): Promise<{ offset: number; handled: Set<number> }> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    const [entry] = await admin.fetchOffsets({ groupId: h.groupId, topics: [h.topic] });
    const p = entry!.partitions.find((x) => x.partition === 0)!;
    const offset = Number(p.offset);
    if (offset < 0) return { offset, handled: new Set() };
    const named = decodeCommitMetadata(BigInt(offset), p.metadata);
    return { offset, handled: new Set([...named].map(Number)) };
  } finally {
    await admin.disconnect();
  }
}

function copiesByOffset(dlq: DlqRead[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const r of dlq) out.set(sourceOffset(r), (out.get(sourceOffset(r)) ?? 0) + 1);
  return out;
}

/**
 * A dead letter is durable before the source offset passes it (docs/architecture.md, "Bridge
 * behaviour"), on the real broker: with the bridge killed between the DLQ write and the
 * commit, and with the DLQ topic unavailable while poison arrives.
 */
describe('bridge: a dead letter is durable before its offset is committed (real Kafka, Temporal, Postgres)', function () {
  this.timeout(240_000);
  let h: BridgeHarness;
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
    await h?.tearDown();
  });

  it('SIGKILL between the DLQ write and the commit: the restart writes those dead letters again, nothing is lost, nothing else repeats', async () => {
    h = await new BridgeHarness().setUp(1);
    // The first bridge reaches Temporal through a proxy that is cut: the valid order of the
    // batch retries its start for ever, so the batch, and with it the commit, cannot finish,
    // while the poison beside it (other keys) is dead-lettered. That holds the bridge in the
    // window between the DLQ writes and the commit for as long as the test needs.
    const [host, port] = h.config.temporal.address.split(':');
    const proxy = new TcpProxy(host!, Number(port));
    await proxy.open();
    await proxy.cut();
    // One send before any bridge runs: one record batch, so one fetch hands all three over.
    const batch = [poison('p0'), order(), poison('p2')];
    await h.produce(batch);
    const late = poison('p3'); // produced after the restart, at offset 3
    const watcher = new CommitWatcher(h, [0, 2, 3]);
    cleanups.push(() => watcher.stop());
    const session = { BRIDGE_SESSION_TIMEOUT_MS: '6000' };
    const first = spawnBridge(h, { ...session, TEMPORAL_ADDRESS: proxy.address });
    cleanups.push(async () => first.kill('SIGKILL'));
    await waitFor(async () => (await h.dlqSize()) >= 2, {
      timeoutMs: 60_000,
      what: 'both dead letters written (acks=all) by the first bridge',
    });
    first.kill('SIGKILL');
    assert.equal(await exitOf(first), 'SIGKILL');
    // What the crash left: dead letters in the log, and a commit that cannot have passed the
    // stuck order at offset 1: the dead letter of offset 2 is in the window, unless a commit
    // of the prefix carried it as handled beyond (the bridge's commit metadata).
    const atKill = (await h.readDlq()).map(sourceOffset);
    const { offset: committedAtKill, handled } = await committedWithMetadata(h);
    assert.deepEqual([...atKill].sort(), [0, 2], first.output());
    assert.ok(committedAtKill <= 1, `committed ${committedAtKill} past the stuck order`);
    // A dead letter the commit's metadata names as handled beyond the committed offset is
    // skipped by the restart (one copy); one it does not name is in the window (written again).
    const inWindow = atKill.filter((o) => o >= committedAtKill && !handled.has(o));
    assert.ok(
      inWindow.includes(2) || handled.has(2),
      'the kill landed after the dead letter of offset 2 was written, before a commit passed it',
    );

    // A restarted bridge with Temporal reachable: it gets the batch again from offset 0.
    const second = spawnBridge(h, session);
    cleanups.push(async () => second.kill('SIGKILL'));
    await h.waitUntilAllCommitted(120_000);
    // Poison arriving after the restart: no crash in its window, so one dead letter.
    await h.produce([late]);
    await h.waitUntilAllCommitted(60_000);
    second.kill('SIGTERM');
    assert.equal(await exitOf(second), 0, second.output());
    await watcher.stop();
    assert.deepEqual(watcher.violations, []);
    assert.ok(watcher.seen.length > 0, 'the watcher saw the commits');

    // What the product promises (docs/architecture.md, "Error classification"): at least once.
    // A dead letter written before the crash and not yet committed (nor named by the commit's
    // metadata) is written again by the restart, with the same source coordinates (the
    // idempotent producer does not span two processes); every other poison message has
    // exactly one.
    const dlq = await h.readDlq();
    assert.deepEqual(
      [...copiesByOffset(dlq)].sort(([a], [b]) => a - b),
      [0, 2, 3].map((o) => [o, inWindow.includes(o) ? 2 : 1]),
      `copies per source offset (in the window at the kill: ${inWindow.join(', ')})`,
    );
    for (const r of dlq) {
      const source = [...batch, late][sourceOffset(r)]!;
      assert.equal(r.key, source.key);
      assert.equal(r.value, source.value);
      assert.equal(r.headers[DLQ_HEADER.reason], 'unparseable');
      assert.equal(r.headers[DLQ_HEADER.sourceTopic], h.topic);
      assert.equal(r.headers[DLQ_STUB_HEADER.stub], undefined, 'the full record');
    }
    // The one valid order: started once, by the second bridge.
    assert.equal(await h.ledgerCount(), 1);
  });

  for (const fault of [
    {
      name: 'was deleted (UNKNOWN_TOPIC_OR_PARTITION), then recreated by setup',
      stub: false,
      // Each failed try is KafkaJS's own retries (~10 s) given up: one per poison message.
      failedTries: 2,
      break: async (h: BridgeHarness) => {
        const admin = h.kafka.admin();
        await admin.connect();
        try {
          await admin.deleteTopics({ topics: [h.dlqTopic] });
          await waitFor(async () => !(await admin.listTopics()).includes(h.dlqTopic), {
            timeoutMs: 30_000,
            what: 'the DLQ topic gone',
          });
        } finally {
          await admin.disconnect();
        }
      },
      restore: (h: BridgeHarness) => ensureTopics(h.kafka, { topics: [h.topic], partitions: 1 }),
    },
    {
      // Refused for its size, the full record turns into a stub; refused too, the stub is
      // retried until it is written (it is built to fit any sane limit).
      name: 'refuses every record (max.message.bytes 100, below even the stub)',
      stub: true,
      // Three tries of the full record each, then the stub's, refused too.
      failedTries: 10,
      break: (h: BridgeHarness) => setTopicConfig(h.kafka, h.dlqTopic, 'max.message.bytes', '100'),
      restore: (h: BridgeHarness) => ensureTopics(h.kafka, { topics: [h.topic], partitions: 1 }),
    },
  ]) {
    it(`a DLQ topic that ${fault.name} while poison arrives: no commit passes the poison; once fixed, one dead letter each`, async () => {
      h = await new BridgeHarness().setUp(1);
      const bridge = await h.startBridge();
      // A dead letter before the fault: the DLQ producer's sequence for the topic is under way.
      await h.produce([poison('before')]);
      await h.waitUntilAllCommitted(60_000);
      assert.equal(await h.dlqSize(), 1);

      await fault.break(h);
      const dlqBefore = await h.dlqSize();
      // Offsets 1 to 5; the poison at 2 and 4, each with a valid order on either side.
      const records = [order(), poison('p2'), order(), poison('p4'), order()];
      await h.produce(records);
      const watcher = new CommitWatcher(h, [2, 4]);
      cleanups.push(() => watcher.stop());
      // The valid orders beside the poison start; the poison waits on the DLQ, tried again
      // and again, never given up on. (A commit past the poison ends the wait too, to fail
      // below with what happened.)
      const committed = async () => (await h.committedOffsets()).get(0)!;
      await waitFor(
        async () =>
          (await counter(bridge, 'started')) === 3 &&
          ((await counter(bridge, 'failedAttempts', { dependency: 'dlq' })) >= fault.failedTries ||
            (await committed()) > 2),
        { timeoutMs: 60_000, what: 'the valid orders started and the DLQ writes retried' },
      );
      const during = await committed();
      assert.ok(during <= 2, `committed ${during}: past the first poison (offset 2)`);
      assert.equal(await h.dlqSize(), dlqBefore, 'nothing written while the fault lasts');
      assert.equal(await counter(bridge, 'dlq'), 1, 'only the dead letter from before');

      await fault.restore(h);
      await h.waitUntilAllCommitted(90_000);
      await watcher.stop();
      assert.deepEqual(watcher.violations, []);
      assert.ok(watcher.seen.length > 0, 'the watcher saw the commits');
      const dlq = (await h.readDlq()).filter((r) => sourceOffset(r) > 0);
      assert.deepEqual(
        dlq.map(sourceOffset).sort((a, b) => a - b),
        [2, 4],
        'one dead letter per poison message',
      );
      for (const r of dlq) {
        const source = records[sourceOffset(r) - 1]!;
        assert.equal(r.key, source.key);
        assert.equal(r.headers[DLQ_HEADER.reason], 'unparseable');
        if (fault.stub) {
          assert.equal(r.headers[DLQ_STUB_HEADER.stub], 'true');
          assert.match(r.headers[DLQ_STUB_HEADER.cause]!, /MESSAGE_TOO_LARGE|larger than/i);
          const body = JSON.parse(r.value!) as DlqStubValue;
          assert.equal(body.value?.sha256, sha256(Buffer.from(source.value)));
        } else {
          assert.equal(r.headers[DLQ_STUB_HEADER.stub], undefined, 'the full record');
          assert.equal(r.value, source.value);
        }
      }
      assert.equal(await counter(bridge, 'dlq'), 3);
      assert.equal(await counter(bridge, 'dlqStubs'), fault.stub ? 2 : 0);
      assert.equal(await h.ledgerCount(), 3);
    });
  }
});
