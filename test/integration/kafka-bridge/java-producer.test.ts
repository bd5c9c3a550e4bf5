import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import type { RunningBridge } from '../../../src/kafka-bridge/bridge';
import { BridgeHarness } from '../../support/bridge-harness';
import {
  JAVA_CODECS,
  produceWithJava,
  type JavaCodec,
  type JavaLine,
} from '../../support/java-console-producer';

/** A valid OrderPlaced as a ConsoleProducer line, with `extra` headers after the contract's. */
function validLine(orderId: string, extra: Array<[string, string | null]> = []): JavaLine {
  const m = buildEventMessage({
    eventType: 'OrderPlaced',
    aggregateId: orderId,
    aggregateVersion: 1,
    data: sampleOrderPlaced(orderId),
  });
  const headers = Object.entries(m.headers).map(([k, v]) => [k, String(v)] as [string, string]);
  return { headers: [...headers, ...extra], key: m.key, value: m.value };
}

/** Poison (a value that is not JSON) with the contract's headers and `extra` after them. */
function poisonLine(orderId: string, extra: Array<[string, string | null]> = []): JavaLine {
  return {
    headers: [
      ['event-id', randomUUID()],
      ['event-type', 'OrderPlaced'],
      ['aggregate-id', orderId],
      ['aggregate-version', '1'],
      ...extra,
    ],
    key: orderId,
    value: '{not json',
  };
}

const PROTOTYPE_NAMED: Array<[string, string]> = [
  ['constructor', 'c'],
  ['__proto__', 'p'],
  ['toString', 't'],
  ['valueOf', 'v'],
];

async function restarts(bridge: RunningBridge): Promise<number> {
  return (await bridge.metrics.consumerRestarts.get()).values[0]?.value ?? 0;
}

describe("bridge: events from Kafka's Java console producer", () => {
  let h: BridgeHarness;
  beforeEach(async () => {
    // One partition: a batch the bridge cannot read would stop every message after it.
    h = await new BridgeHarness().setUp(1);
  });
  afterEach(async () => {
    await h.tearDown();
  });

  it('reads batches of every codec (none, gzip, snappy, lz4, zstd): starts each order once, dead-letters each poison', async () => {
    const orders = new Map<JavaCodec, { valid: string; poison: string }>();
    for (const codec of JAVA_CODECS) {
      const ids = { valid: `o-${codec}-${randomUUID()}`, poison: `o-${codec}-${randomUUID()}` };
      orders.set(codec, ids);
      await produceWithJava({
        brokers: h.config.kafka.brokers,
        topic: h.topic,
        codec,
        lines: [validLine(ids.valid), poisonLine(ids.poison, [['constructor', codec]])],
      });
    }
    const bridge = await h.startBridge();
    await h.waitUntilAllCommitted();

    for (const [codec, ids] of orders) {
      assert.ok(
        await h.describe(deriveWorkflowId('OrderPlaced', versionIdentity(ids.valid, 1))),
        `${codec}: order started`,
      );
    }
    assert.equal(await h.ledgerCount(), JAVA_CODECS.length, 'one start per valid event');
    const dlq = await h.readDlq();
    assert.equal(dlq.length, JAVA_CODECS.length, 'one DLQ record per poison message');
    assert.deepEqual(
      dlq.map((m) => m.key).sort(),
      [...orders.values()].map((o) => o.poison).sort(),
    );
    for (const m of dlq) {
      assert.equal(m.headers['dlq-reason'], 'unparseable');
      assert.equal(m.value, '{not json', 'original value kept');
    }
    assert.equal(await restarts(bridge), 0, 'the consumer never restarted');
  });

  it('handles null header values and prototype-named headers on valid and poison events', async () => {
    const valid = [`o-${randomUUID()}`, `o-${randomUUID()}`, `o-${randomUUID()}`];
    const poison = [`o-${randomUUID()}`, `o-${randomUUID()}`, `o-${randomUUID()}`];
    await produceWithJava({
      brokers: h.config.kafka.brokers,
      topic: h.topic,
      codec: 'snappy',
      lines: [
        validLine(valid[0]!, [...PROTOTYPE_NAMED, ['trace-id', null]]),
        poisonLine(poison[0]!, PROTOTYPE_NAMED),
        validLine(valid[1]!, [['constructor', null]]),
        poisonLine(poison[1]!, [
          ['trace-id', null],
          ['toString', null],
        ]),
        // A DLQ entry replayed by a foreign tool with its counters nulled.
        poisonLine(poison[2]!, [
          ['dlq-failure-count', null],
          ['dlq-first-failed-at', null],
        ]),
        validLine(valid[2]!),
      ],
    });
    const bridge = await h.startBridge();
    await h.waitUntilAllCommitted();

    for (const orderId of valid) {
      assert.ok(
        await h.describe(deriveWorkflowId('OrderPlaced', versionIdentity(orderId, 1))),
        orderId,
      );
    }
    assert.equal(await h.ledgerCount(), valid.length, 'one start per valid event');
    const dlq = await h.readDlq();
    assert.deepEqual(dlq.map((m) => m.key).sort(), [...poison].sort(), 'each poison once');
    for (const m of dlq) {
      assert.equal(m.headers['dlq-reason'], 'unparseable', `${m.key}`);
      assert.ok(m.headers['dlq-error'], 'an explanation');
    }
    assert.equal(await restarts(bridge), 0, 'the consumer never restarted');
  });
});
