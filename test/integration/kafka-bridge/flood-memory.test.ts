import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { translateMessage, type StartCommand } from '../../../src/events/translate';
import { DEFAULT_ROUTES } from '../../../src/domains';
import { createLedgerStore, type LedgerRow } from '../../../src/db/ledger-store';
import { ledgerRowOf } from '../../../src/kafka-bridge/message-step';
import { BridgeHarness } from '../../support/bridge-harness';
import { exitOf, spawnBridge } from '../../support/child-bridge';

/** Events in the flood (FLOOD_EVENTS runs another size by hand). */
const EVENTS = Number(process.env.FLOOD_EVENTS ?? 50_000);
/** Every this many events, one is new (a real start); the others the ledger already knows. */
const NEW_EVERY = 10;
/** The read-ahead per partition the bridge runs with. */
const WINDOW = 500;
/**
 * The bridge's heap, capped as production caps it (package.json's start:bridge; smaller
 * here, and 8 MiB semi-spaces as start:worker): a bridge that held the flood in memory would
 * outgrow it (about 270 MiB more for 50,000) and die of it.
 */
const HEAP_MIB = 192;
/** How far its resident memory may grow once it is under way (MiB). */
const GROWTH_BOUND_MIB = 80;

/** The resident set of a process, in MiB (Linux). */
function rssMiB(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

function orderAt(h: BridgeHarness, n: number) {
  const orderId = `f${n}-${h.topic}`;
  return buildEventMessage({
    eventType: 'OrderPlaced',
    aggregateId: orderId,
    aggregateVersion: 1,
    data: sampleOrderPlaced(orderId, { lines: 1 }),
  });
}

/** The ledger row the bridge would have written for `record` (a redelivery it then skips). */
function knownRowOf(h: BridgeHarness, record: ReturnType<typeof orderAt>): LedgerRow {
  const headers = Object.fromEntries(
    Object.entries(record.headers).map(([k, v]) => [k, Buffer.from(String(v))]),
  );
  const cmd = translateMessage(
    {
      key: Buffer.from(record.key ?? ''),
      value: Buffer.from(record.value ?? ''),
      headers,
    },
    DEFAULT_ROUTES,
    { maxBytes: 1 << 20 },
  ) as StartCommand;
  assert.equal(cmd.kind, 'start');
  return ledgerRowOf(cmd, { topic: h.topic, partition: 0, offset: '0' }, null);
}

/**
 * A flood of 50,000 small orders, all in Kafka before the bridge starts, through a bridge
 * process whose heap is capped: it reads no further ahead than its window, so its memory stays
 * bounded however long the backlog. One in ten is new and started on a task queue no worker
 * polls (starts only); the rest are redeliveries the ledger already knows (prefilled), so the
 * flood goes through in about a minute while the starts keep the windows full. Real Kafka,
 * Temporal and Postgres.
 */
describe('bridge: a flood through a bounded window (real Kafka, Temporal, Postgres)', function () {
  this.timeout(15 * 60_000);
  let h: BridgeHarness;
  after(async () => {
    await h?.tearDown();
  });

  it(`${EVENTS} events: each handled once, the bridge within its heap, its resident memory up at most ${GROWTH_BOUND_MIB} MiB`, async () => {
    h = await new BridgeHarness().setUp(4);
    const ledger = createLedgerStore(h.pool, { schema: h.schema });
    const producer = h.kafka.producer();
    await producer.connect();
    try {
      for (let sent = 0; sent < EVENTS; sent += 2000) {
        const batch = Array.from({ length: Math.min(2000, EVENTS - sent) }, (_, i) => sent + i);
        const records = batch.map((n) => orderAt(h, n));
        await ledger.recordAllStarted(
          records.filter((_, i) => batch[i]! % NEW_EVERY !== 0).map((r) => knownRowOf(h, r)),
        );
        await producer.send({ topic: h.topic, acks: -1, messages: records });
      }
    } finally {
      await producer.disconnect();
    }
    const bridge = spawnBridge(h, {
      BRIDGE_WINDOW_RECORDS: String(WINDOW),
      BRIDGE_START_CONCURRENCY: '64',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${HEAP_MIB} --max-semi-space-size=8`,
    });
    const prefilled = await h.ledgerCount();
    let baseline: number | undefined;
    let peak = 0;
    let underWay = false;
    // Under way once its first new start is in the ledger: consuming, its windows filling.
    const watch = setInterval(() => {
      void h.ledgerCount().then((n) => (underWay ||= n > prefilled));
    }, 500);
    const sample = setInterval(() => {
      if (bridge.exitCode !== null || bridge.signalCode !== null) return;
      const rss = rssMiB(bridge);
      peak = Math.max(peak, rss);
      if (baseline === undefined && underWay) baseline = rss;
    }, 250);
    try {
      await h.waitUntilAllCommitted(10 * 60_000);
    } finally {
      clearInterval(watch);
      clearInterval(sample);
      bridge.kill('SIGTERM');
      assert.equal(await exitOf(bridge), 0, bridge.output());
    }
    assert.equal(await h.ledgerCount(), EVENTS, 'every event known once');
    assert.ok(baseline !== undefined, 'the bridge was measured under way');
    assert.ok(
      peak - baseline <= GROWTH_BOUND_MIB,
      `resident memory grew from ${baseline.toFixed(0)} MiB to ${peak.toFixed(0)} MiB`,
    );
  });
});
