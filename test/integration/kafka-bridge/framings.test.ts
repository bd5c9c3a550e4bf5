import { strict as assert } from 'node:assert';
import { z } from 'zod';
import { DEFAULT_ROUTES } from '../../../src/domains';
import { defineRoute } from '../../../src/events/define-route';
import { buildEventMessage } from '../../../src/events/event-message';
import type { FramingFunction } from '../../../src/events/framing';
import { deriveWorkflowId, eventIdentity } from '../../../src/events/identity';
import { mergeRoutes } from '../../../src/events/routes';
import { ensureTopics } from '../../../src/kafka/topics';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import type { RunningBridge } from '../../../src/kafka-bridge/bridge';
import { BridgeHarness } from '../../support/bridge-harness';
import { produceAsKafkaConnect, type ConnectConverter } from '../../support/java-connect-producer';
import { stackRegistryUrl } from '../../support/node-registry-producer';
import { uniqueName } from '../../support/services';

const payment = z.object({ paymentId: z.string(), amountMinor: z.number().int() });
const data = (paymentId: string) => ({ paymentId, amountMinor: 1250 });

/** A team's plain JSON: the payment ID is the event's identity and its aggregate. */
const plainJson: FramingFunction = (m) => {
  const value = m.value as { paymentId?: string };
  return {
    eventType: 'PaymentSettled',
    eventId: value.paymentId!,
    aggregateId: value.paymentId!,
    data: value,
  };
};

const text = (headers: Record<string, string>) => headers;

/** IDs unique to this run: Temporal keeps workflow IDs of earlier runs (REJECT_DUPLICATE). */
const run = uniqueName('r');
const id = (name: string) => `${name}-${run}`;

/**
 * One bridge, four framings, each on its own topic (the envelope on the harness' topic): per
 * framing the event starts once, its redelivery and a re-send are deduplicated, a malformed one
 * is dead-lettered with its reason, and nothing crosses between topics.
 */
describe('bridge: framings side by side on the real stack', () => {
  let h: BridgeHarness;
  let bridge: RunningBridge;
  const topics = {
    cloudevents: uniqueName('payments-ce'),
    outbox: uniqueName('outbox-event-payment'),
    plain: uniqueName('payments-plain'),
  };
  const routes = mergeRoutes(DEFAULT_ROUTES, [
    defineRoute({
      eventType: 'PaymentCaptured',
      schema: payment,
      workflow: 'paymentCaptured',
      framing: 'cloudevents',
      topics: [topics.cloudevents],
    }),
    defineRoute({
      eventType: 'PaymentRefunded',
      schema: payment,
      workflow: 'paymentRefunded',
      framing: 'debezium-outbox',
      topics: [topics.outbox],
    }),
    defineRoute({
      eventType: 'PaymentSettled',
      schema: payment,
      workflow: 'paymentSettled',
      framing: plainJson,
      topics: [topics.plain],
    }),
  ]);

  before(async () => {
    h = await new BridgeHarness().setUp(1);
    await ensureTopics(h.kafka, { topics: Object.values(topics), partitions: 1 });
    bridge = await h.startBridge({ routes });
  });
  after(async () => {
    await h.tearDown();
  });

  /** Waits for every topic's commit, then the ledger's rows and each topic's dead letters. */
  async function settle() {
    for (const topic of [h.topic, ...Object.values(topics)])
      await h.waitUntilAllCommitted(60_000, topic);
  }
  async function started(eventType: string): Promise<string[]> {
    const { rows } = await h.pool.query<{ identity: string }>(
      `SELECT identity FROM "${h.schema}".processed_events WHERE event_type = $1 ORDER BY identity`,
      [eventType],
    );
    return rows.map((r) => r.identity);
  }
  // Different keys are handled concurrently: their dead letters in key order.
  const reasons = async (topic: string) =>
    (await h.readDlq(topic))
      .map((m) => [m.key, m.headers['dlq-reason']])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

  it('CloudEvents: binary and structured are one event; a redelivery and a re-send start nothing more', async () => {
    const binary = {
      key: id('pay-1'),
      value: JSON.stringify(data(id('pay-1'))),
      headers: text({
        ce_specversion: '1.0',
        ce_id: id('ce-1'),
        ce_source: '/payments',
        ce_type: 'PaymentCaptured',
        ce_subject: id('pay-1'),
        'content-type': 'application/json',
      }),
    };
    const structured = {
      key: id('pay-1'),
      value: JSON.stringify({
        specversion: '1.0',
        id: id('ce-1'),
        source: '/payments',
        type: 'PaymentCaptured',
        subject: id('pay-1'),
        data: data(id('pay-1')),
      }),
      headers: text({ 'content-type': 'application/cloudevents+json' }),
    };
    const noType = {
      ...binary,
      key: id('pay-2'),
      headers: { ...binary.headers, ce_type: undefined },
    };
    delete (noType.headers as Record<string, unknown>).ce_type;
    await h.produce([binary, binary, structured, noType], topics.cloudevents);
    await settle();
    const identity = eventIdentity(id('ce-1'), '/payments');
    assert.deepEqual(await started('PaymentCaptured'), [identity]);
    assert.ok(await h.describe(deriveWorkflowId('PaymentCaptured', identity)));
    assert.deepEqual(await reasons(topics.cloudevents), [[id('pay-2'), 'missing-identity']]);
  });

  it('CloudEvents: two sources with the same id and the same data are two events, two runs', async () => {
    const event = (source: string, paymentId: string) => ({
      key: paymentId,
      value: JSON.stringify({
        specversion: '1.0',
        id: id('seq-1042'),
        source,
        type: 'PaymentCaptured',
        subject: paymentId,
        data: { paymentId: id('same'), amountMinor: 1250 },
      }),
      headers: text({ 'content-type': 'application/cloudevents+json' }),
    });
    const [shop, pos] = ['//shop.example/payments', 'urn:pos:store-7'];
    await h.produce(
      [event(shop, id('pay-s')), event(pos, id('pay-p')), event(pos, id('pay-p'))],
      topics.cloudevents,
    );
    await settle();
    const identities = [shop, pos].map((source) => eventIdentity(id('seq-1042'), source));
    const rows = await started('PaymentCaptured');
    for (const identity of identities) {
      assert.ok(rows.includes(identity), `${JSON.stringify(identity)} started: ${rows.join(', ')}`);
      assert.ok(await h.describe(deriveWorkflowId('PaymentCaptured', identity)), 'its run');
    }
    assert.equal(rows.filter((r) => r.endsWith(id('seq-1042'))).length, 2, 'one run per source');
    assert.ok(!(await h.readDlq(topics.cloudevents)).some((m) => m.key === id('pay-p')));
  });

  it("Debezium's outbox: id header, aggregate key, type header; the expanded payload is the same event", async () => {
    const record = {
      key: id('pay-3'),
      // Debezium's JsonConverter hands a JSON payload column over as a string.
      value: JSON.stringify(JSON.stringify(data(id('pay-3')))),
      headers: text({ id: id('ob-1'), eventType: 'PaymentRefunded' }),
    };
    const expanded = { ...record, value: JSON.stringify(data(id('pay-3'))) };
    const noId = {
      key: id('pay-4'),
      value: record.value,
      headers: text({ eventType: 'PaymentRefunded' }),
    };
    await h.produce([record, record, expanded, noId], topics.outbox);
    await settle();
    assert.deepEqual(await started('PaymentRefunded'), [eventIdentity(id('ob-1'))]);
    assert.deepEqual(await reasons(topics.outbox), [[id('pay-4'), 'missing-identity']]);
  });

  it("Debezium's outbox as Kafka Connect writes it (its own JsonConverter, with and without schemas, and a registry key converter): each event acted on once", async () => {
    const row = (
      n: number,
      keyConverter: ConnectConverter,
      valueConverter: 'json-schemas' | 'json-plain',
    ) => ({
      keyConverter,
      valueConverter,
      aggregateId: id(`pay-connect-${n}`),
      eventId: id(`ob-connect-${n}`),
      eventType: 'PaymentRefunded',
      payload: JSON.stringify(data(id(`pay-connect-${n}`))),
    });
    const rows = [
      row(1, 'json-schemas', 'json-schemas'),
      row(2, 'json-plain', 'json-plain'),
      row(3, 'avro', 'json-schemas'),
    ];
    await produceAsKafkaConnect({
      brokers: h.config.kafka.brokers,
      registryUrl: await stackRegistryUrl(),
      topic: topics.outbox,
      rows: [...rows, rows[0]!], // and a redelivery of the first
    });
    await settle();
    const { rows: ledger } = await h.pool.query<{ identity: string; aggregate_id: string }>(
      `SELECT identity, aggregate_id FROM "${h.schema}".processed_events
        WHERE event_type = 'PaymentRefunded' AND aggregate_id LIKE $1 ORDER BY aggregate_id`,
      [`pay-connect-%`],
    );
    assert.deepEqual(
      ledger.map((r) => [r.aggregate_id, r.identity]),
      rows.map((r) => [r.aggregateId, eventIdentity(r.eventId)]),
    );
    for (const r of rows)
      assert.ok(await h.describe(deriveWorkflowId('PaymentRefunded', eventIdentity(r.eventId))));
    const dead = (await h.readDlq(topics.outbox)).filter((m) => m.headers.id?.includes('connect'));
    assert.deepEqual(dead, [], 'none dead-lettered');
  });

  it('plain JSON keyed by a business field, through a framing function', async () => {
    const record = { key: id('pay-5'), value: JSON.stringify(data(id('pay-5'))) };
    // The same payment re-sent by a producer that orders its fields otherwise.
    const resent = {
      key: id('pay-5'),
      value: `{ "amountMinor": 1250, "paymentId": "${id('pay-5')}" }`,
    };
    const notJson = { key: id('pay-6'), value: '{"paymentId": ' };
    const noPayment = { key: id('pay-7'), value: JSON.stringify({ amountMinor: 1 }) };
    await h.produce([record, record, resent, notJson, noPayment], topics.plain);
    await settle();
    assert.deepEqual(await started('PaymentSettled'), [eventIdentity(id('pay-5'))]);
    assert.deepEqual(await reasons(topics.plain), [
      [id('pay-6'), 'unparseable'],
      [id('pay-7'), 'missing-identity'],
    ]);
  });

  it("onceflow's envelope goes on as before beside them, and each framing's counts are its own", async () => {
    const order = buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: id('order-f1'),
      aggregateVersion: 1,
      data: sampleOrderPlaced(id('order-f1')),
    });
    const resent = buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: id('order-f1'),
      aggregateVersion: 1,
      data: sampleOrderPlaced(id('order-f1')),
    });
    // A CloudEvent on the envelope's topic is read as an envelope: it has none.
    const stray = {
      key: id('order-f2'),
      value: JSON.stringify(data(id('order-f2'))),
      headers: text({ ce_specversion: '1.0', ce_id: 'x', ce_source: '/s', ce_type: 'OrderPlaced' }),
    };
    await h.produce([order, order, resent, stray]);
    await settle();
    assert.deepEqual(await started('OrderPlaced'), [`v:${id('order-f1')}@1`]);
    assert.deepEqual(await reasons(h.topic), [[id('order-f2'), 'missing-identity']]);
    const count = async (metric: 'started' | 'duplicates', topic: string) =>
      (await bridge.metrics[metric].get()).values
        .filter((v) => v.labels.topic === topic)
        .reduce((n, v) => n + v.value, 0);
    // One event each, besides: two CloudEvents sources (2), three records from Kafka Connect.
    const starts = new Map([
      [h.topic, 1],
      [topics.cloudevents, 3],
      [topics.outbox, 4],
      [topics.plain, 1],
    ]);
    for (const [topic, n] of starts) {
      assert.equal(await count('started', topic), n, `${topic}: its starts`);
      // Its redelivery and its re-send (a redelivery after a rebalance would add to them).
      assert.ok((await count('duplicates', topic)) >= 2, `${topic}: both deduplicated`);
    }
  });
});
