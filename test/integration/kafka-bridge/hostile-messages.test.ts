import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import type { IHeaders } from 'kafkajs';
import pino from 'pino';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { startBridge } from '../../../src/kafka-bridge/bridge';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import { buildRouteTable } from '../../../src/domains';
import { runReconcile } from '../../../src/reconcile/reconcile';
import { BridgeHarness } from '../../support/bridge-harness';
import { produceWithJava } from '../../support/java-console-producer';

type Raw = { key: string | null; value: string | Buffer | null; headers?: IHeaders };

/** A null header value: kafkajs cannot send one, Kafka's Java producer can. */
const NULL = null as unknown as string;

/**
 * Sends records with Kafka's own Java console producer (test/support), which, unlike kafkajs,
 * writes null header values; then checks they all arrived.
 */
async function sendWithJava(h: BridgeHarness, records: Raw[]): Promise<void> {
  await produceWithJava({
    brokers: h.config.kafka.brokers,
    topic: h.topic,
    codec: 'none',
    lines: records.map((r) => ({
      headers: Object.entries(r.headers ?? {}).map(([name, v]): [string, string | null] => [
        name,
        v === null ? null : String(v),
      ]),
      key: r.key,
      value: r.value === null ? null : String(r.value),
    })),
  });
  const ends = await h.endOffsets();
  assert.equal(
    [...ends.values()].reduce((a, b) => a + b, 0),
    records.length,
    'all produced',
  );
}

function valid(orderId: string): Raw {
  return buildEventMessage({
    eventType: 'OrderPlaced',
    aggregateId: orderId,
    aggregateVersion: 1,
    data: sampleOrderPlaced(orderId),
  });
}

/** An OrderPlaced whose data fails validation, with extra headers. */
function invalid(orderId: string, extra: IHeaders): Raw {
  return {
    key: orderId,
    value: JSON.stringify({ ...sampleOrderPlaced(orderId), totalMinor: 1 }),
    headers: {
      'event-id': randomUUID(),
      'event-type': 'OrderPlaced',
      'aggregate-id': orderId,
      'aggregate-version': '1',
      ...extra,
    },
  };
}

describe('bridge: hostile headers and values never block a partition (real Kafka)', () => {
  let h: BridgeHarness;
  beforeEach(async () => {
    // One partition: a wedged message would hold back every later offset.
    h = await new BridgeHarness().setUp(1);
  });
  afterEach(async () => {
    await h.tearDown();
  });

  it('dead-letters poison with prototype-named and null headers, and starts what follows', async () => {
    const ids = Array.from({ length: 5 }, () => `o-${randomUUID()}`);
    const many: IHeaders = {};
    for (let i = 0; i < 150; i++) many[`x-${i}`] = 'v';
    const poison: Raw[] = [
      // kafkajs decodes `constructor` as [Function Object, Buffer]: the DLQ encoder threw on it.
      invalid(ids[0]!, { constructor: 'c', toString: 't', valueOf: 'v', ['__proto__']: 'p' }),
      invalid(ids[1]!, { 'x-null': NULL, 'dlq-failure-count': NULL, 'dlq-first-failed-at': NULL }),
      invalid(ids[2]!, many),
    ];
    // A valid event with a null header and a prototype-named header still starts.
    const oddButValid = valid(ids[3]!);
    oddButValid.headers = { ...oddButValid.headers, 'x-null': NULL, constructor: 'c' };
    const follower = valid(ids[4]!);
    await sendWithJava(h, [...poison, oddButValid, follower]);
    await h.startBridge();
    await h.waitUntilAllCommitted();

    const dlq = (await h.readDlq()).sort(
      (x, y) => Number(x.headers['dlq-source-offset']) - Number(y.headers['dlq-source-offset']),
    );
    assert.deepEqual(
      dlq.map((m) => m.headers['dlq-reason']),
      ['validation-failed', 'validation-failed', 'oversized'],
    );
    // (kafkajs itself decodes the DLQ copy's `constructor` as [Function, Buffer]: not read here.)
    assert.equal(dlq[0]!.headers['dlq-dropped-headers'], undefined, 'its own values copied');
    assert.equal(dlq[1]!.headers['dlq-failure-count'], '1', 'a null count is absent');
    assert.match(dlq[1]!.headers['dlq-dropped-headers']!, /x-null/);
    assert.match(dlq[2]!.headers['dlq-error']!, /154 headers, more than the limit of 100/);
    assert.match(dlq[2]!.headers['dlq-dropped-headers']!, /^x-96,x-97,/, 'the first 100 kept');
    for (const orderId of [ids[3]!, ids[4]!]) {
      assert.ok(
        await h.describe(deriveWorkflowId('OrderPlaced', versionIdentity(orderId, 1))),
        `${orderId} started`,
      );
    }
  });

  it('dead-letters data nested 5,000 deep on an extra route, and reconcile reads it too', async () => {
    const prefix = `deep-${randomUUID()}`;
    const routes = buildRouteTable({ Deep: { workflowType: 'deep', identity: 'event-id' } });
    const deep = `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const nullAggregate: Raw = {
      key: `${prefix}-b`,
      value: '{}',
      headers: { 'event-id': 'e', 'event-type': 'Deep', 'aggregate-id': NULL },
    };
    await sendWithJava(h, [
      {
        key: `${prefix}-a`,
        value: deep,
        headers: { 'event-id': randomUUID(), 'event-type': 'Deep', 'aggregate-id': `${prefix}-a` },
      },
      nullAggregate,
    ]);
    const bridge = await startBridge({
      config: h.config,
      kafka: h.kafka,
      client: h.client,
      pool: h.pool,
      log: pino({ level: 'silent' }),
      routes,
      ledgerSchema: h.schema,
      topics: [h.topic],
      groupId: h.groupId,
      taskQueue: h.taskQueue,
      backoff: { initialMs: 50, maxMs: 500 },
    });
    try {
      await h.waitUntilAllCommitted();
    } finally {
      await bridge.stop();
    }
    const dlq = (await h.readDlq()).sort((x, y) => (x.key ?? '').localeCompare(y.key ?? ''));
    assert.equal(dlq.length, 2, 'one DLQ record each');
    assert.equal(dlq[0]!.headers['dlq-reason'], 'unparseable');
    assert.match(dlq[0]!.headers['dlq-error']!, /more than 64 levels deep/);
    assert.equal(dlq[1]!.headers['dlq-reason'], 'missing-identity');

    // Reconcile translates the same messages and reads the null header when filing them.
    const report = await runReconcile(
      { kafka: h.kafka, client: h.client, pool: h.pool },
      {
        topics: [h.topic],
        prefix,
        schema: h.schema,
        providersUrl: 'http://127.0.0.1:9',
        routes,
        translateOptions: { maxBytes: h.config.bridge.maxMessageBytes },
        readTimeoutMs: 60_000,
      },
    );
    assert.equal(report.read.poison, 2);
    assert.equal(report.read.dlqMessages, 2);
  });
});
