import { strict as assert } from 'node:assert';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { DLQ_HEADER } from '../../../src/events/dlq-message';
import {
  DLQ_STUB_HEADER,
  STUB_HEAD_BYTES,
  type DlqStubValue,
} from '../../../src/kafka-bridge/dlq-stub';
import type { RunningBridge } from '../../../src/kafka-bridge/bridge';
import { BridgeHarness } from '../../support/bridge-harness';
import { setTopicConfig } from '../../support/topic-config';

const KIB = 1024;
const MIB = 1024 * KIB;

function order(orderId = `o-${randomUUID()}`) {
  return buildEventMessage({
    eventType: 'OrderPlaced',
    aggregateId: orderId,
    aggregateVersion: 1,
    data: sampleOrderPlaced(orderId, { lines: 1 }),
  });
}

async function counter(
  bridge: RunningBridge,
  name: 'started' | 'dlq' | 'dlqStubs',
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await bridge.metrics[name].get();
  return values
    .filter((v) =>
      Object.entries(labels).every(
        ([k, want]) => (v.labels as Record<string, unknown>)[k] === want,
      ),
    )
    .reduce((s, v) => s + v.value, 0);
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/**
 * What the DLQ writes when it cannot write the poison whole, on the real broker: a DLQ topic
 * whose limit an operator shrank below the message refuses the full record with
 * MESSAGE_TOO_LARGE, and the bridge writes the stub record (dlq-stub.ts) instead.
 */
describe('bridge: the DLQ stub record on the real broker (real Kafka, Temporal, Postgres)', function () {
  this.timeout(180_000);
  let h: BridgeHarness;
  afterEach(async () => {
    await h?.tearDown();
  });

  it('a `constructor` header is an ordinary header: the poison gets its full DLQ record, header copied, no stub', async () => {
    h = await new BridgeHarness().setUp(1);
    const bridge = await h.startBridge();
    // Stock KafkaJS 2.2.4 decodes a header named `constructor` as [Object, <value>] (an
    // inherited property) and its encoder then throws a TypeError on the DLQ copy; the
    // prototype-safe decoder (src/kafka/kafka-decoder-patch.ts) makes it an own header.
    const poisonValue = 'not json at all';
    await h.produce([
      {
        key: 'poison-1',
        value: poisonValue,
        headers: { constructor: 'x', 'event-type': 'OrderPlaced' },
      },
      order(),
    ]);
    await h.waitUntilAllCommitted(60_000);
    assert.equal(await counter(bridge, 'started'), 1, 'the order after the poison started');
    const dlq = await h.readDlq();
    assert.equal(dlq.length, 1, 'one DLQ record');
    const [record] = dlq;
    assert.equal(record!.headers[DLQ_STUB_HEADER.stub], undefined, 'the full record, not a stub');
    assert.equal(record!.headers[DLQ_HEADER.reason], 'unparseable');
    assert.equal(record!.headers[DLQ_HEADER.sourceOffset], '0');
    assert.equal(record!.key, 'poison-1');
    assert.equal(record!.value, poisonValue, 'the original value');
    assert.equal(record!.headers.constructor, 'x', 'the `constructor` header copied as it was');
    assert.equal(record!.headers['event-type'], 'OrderPlaced');
    assert.equal(record!.headers[DLQ_HEADER.droppedHeaders], undefined, 'no header dropped');
    assert.equal(await counter(bridge, 'dlqStubs'), 0);
  });

  it('a DLQ topic shrunk below the message refuses it (MESSAGE_TOO_LARGE): the stub record goes instead, exactly as documented', async () => {
    h = new BridgeHarness();
    // The source topic takes 4 MiB records; setUp sizes the DLQ to match (4 MiB + headroom).
    const admin = h.kafka.admin();
    await admin.connect();
    try {
      await admin.createTopics({
        // Not KafkaJS's wait (it throws on UNKNOWN_TOPIC_OR_PARTITION): setUp waits for leaders.
        waitForLeaders: false,
        topics: [
          {
            topic: h.topic,
            numPartitions: 1,
            replicationFactor: 1,
            configEntries: [{ name: 'max.message.bytes', value: String(4 * MIB) }],
          },
        ],
      });
    } finally {
      await admin.disconnect();
    }
    await h.setUp(1);
    // The operator's mistake: the DLQ topic's limit lowered afterwards, far below the poison.
    // (The bridge does not re-check topic configs; `npm run setup` would raise it again.)
    await setTopicConfig(h.kafka, h.dlqTopic, 'max.message.bytes', String(64 * KIB));
    const bridge = await h.startBridge();

    // ~1.6 MiB of random base64: over the bridge's 1 MiB limit (`oversized`) and, gzipped by
    // the DLQ producer, still ~1.2 MiB, far over the DLQ topic's 64 KiB.
    const orderId = `o-${randomUUID()}`;
    const big = Buffer.from(
      JSON.stringify({
        data: { ...sampleOrderPlaced(orderId), pad: randomBytes(1200 * KIB).toString('base64') },
      }),
    );
    const headers = buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: {},
    }).headers;
    await h.produce([{ key: orderId, value: big, headers }, order()]);
    await h.waitUntilAllCommitted(90_000);
    assert.equal(await counter(bridge, 'started'), 1, 'the order after the big one started');

    const dlq = await h.readDlq();
    assert.equal(dlq.length, 1, 'only the stub: the refused full record left nothing behind');
    const stub = dlq[0]!;
    const error = `value is ${big.length} bytes, more than the limit of ${h.config.bridge.maxMessageBytes}`;
    const cause = stub.headers[DLQ_STUB_HEADER.cause]!;
    assert.match(cause, /MESSAGE_TOO_LARGE|larger than the max message size/i);
    assert.equal(stub.key, orderId, 'the stub keeps the (short) key');
    assert.equal(stub.headers[DLQ_STUB_HEADER.stub], 'true');
    assert.equal(stub.headers[DLQ_HEADER.reason], 'oversized');
    assert.equal(stub.headers[DLQ_HEADER.error], error);
    assert.equal(stub.headers[DLQ_HEADER.sourceTopic], h.topic);
    assert.equal(stub.headers[DLQ_HEADER.sourcePartition], '0');
    assert.equal(stub.headers[DLQ_HEADER.sourceOffset], '0');
    assert.equal(stub.headers[DLQ_HEADER.failureCount], '1');
    assert.ok(!Number.isNaN(Date.parse(stub.headers[DLQ_HEADER.firstFailedAt]!)));
    assert.equal(stub.headers['content-type'], 'application/json');
    assert.deepEqual(
      Object.keys(stub.headers).filter((n) => !n.startsWith('dlq-') && n !== 'content-type'),
      [],
      'none of the original headers is copied (they may be what could not be written)',
    );
    const keyBytes = Buffer.from(orderId);
    const expected: DlqStubValue = {
      stub: true,
      reason: 'oversized',
      error,
      refusal: cause,
      source: { topic: h.topic, partition: 0, offset: '0' },
      key: { size: keyBytes.length, sha256: sha256(keyBytes) },
      value: {
        size: big.length,
        sha256: sha256(big),
        headBase64: big.subarray(0, STUB_HEAD_BYTES).toString('base64'),
      },
      headers: {
        count: Object.keys(headers).length,
        names: Object.keys(headers),
        namesTruncated: false,
      },
    };
    assert.deepEqual(JSON.parse(stub.value!), expected);
    assert.ok(Buffer.byteLength(stub.value!) < 4 * KIB, 'the stub is small');
    assert.equal(await counter(bridge, 'dlqStubs', { reason: 'oversized' }), 1);
    assert.equal(await counter(bridge, 'dlq', { reason: 'oversized' }), 1);
  });
});
