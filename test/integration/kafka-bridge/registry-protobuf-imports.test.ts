import { strict as assert } from 'node:assert';
import type { IHeaders } from 'kafkajs';
import { HEADER } from '../../../src/events/envelope';
import { OrderPipeline } from '../domains/orders/order-pipeline';
import { produceWithApicurioSerde } from '../../support/java-registry-producer';
import { NodeRegistryProducer, stackRegistryUrl } from '../../support/node-registry-producer';
import {
  commonProto,
  orderPlacedImporting,
  ORDER_PLACED_WITH_TIMESTAMP,
} from '../../support/registry-protobuf-schemas';
import { uniqueName } from '../../support/services';

/** The envelope headers of one OrderPlaced (event ID `eventId`); the Protobuf value is its data. */
const headersOf = (orderId: string, eventId: string): IHeaders => ({
  [HEADER.eventId]: eventId,
  [HEADER.eventType]: 'OrderPlaced',
  [HEADER.aggregateId]: orderId,
  [HEADER.aggregateVersion]: '1',
});

/**
 * Protobuf OrderPlaced schemas as teams split them, written by Apicurio's Java serde (Maven
 * Central) in Confluent-compatible mode, and in Apicurio's own framing: each value decodes as
 * OrderPlaced, and the order, sent twice, is charged once through the real bridge, worker and
 * sandbox providers.
 */
describe('bridge: Protobuf schemas with imports, each value as its own type, charged once', function () {
  this.timeout(240_000);
  let p: OrderPipeline;
  let registryUrl: string;
  before(async () => {
    registryUrl = await stackRegistryUrl();
    p = await new OrderPipeline().setUp();
  });
  after(async () => {
    await p?.tearDown();
  });

  /** Asserts `orderId` ran once to completion and was charged its decoded total once. */
  async function chargedOnce(orderId: string): Promise<void> {
    await p.h.waitUntilAllCommitted(120_000);
    const dead = (await p.h.readDlq()).filter((d) => d.key === orderId);
    assert.deepEqual(
      dead.map((d) => `${d.headers['dlq-reason']}: ${d.headers['dlq-error']}`),
      [],
      `${orderId}: nothing dead-lettered`,
    );
    const [run] = await p.runsOf(orderId, 1);
    assert.equal(run!.result.outcome, 'completed', `${orderId}: ${JSON.stringify(run)}`);
    const ledger = await p.ledger(orderId);
    assert.equal(ledger.charges.length, 1, `${orderId}: charged once`);
    assert.equal(ledger.charges[0]!.amountMinor, 2500, `${orderId}: the decoded total`);
  }

  it('a same-package reference (common.proto) does not shift the message index', async () => {
    const sku = await p.seedStock(100);
    const orderId = uniqueName('o-ref');
    const commonPath = `${uniqueName('common')}.proto`;
    // The serde registers the imported file as a reference; its messages (OrderLine, Money)
    // share OrderPlaced's package, and OrderPlaced is message 0 of its own file.
    await produceWithApicurioSerde({
      brokers: p.h.config.kafka.brokers,
      registryUrl,
      topic: p.h.topic,
      format: 'protobuf',
      schema: orderPlacedImporting(commonPath),
      imports: { [commonPath]: commonProto() },
      records: [1, 2].map(() => ({
        key: orderId,
        headers: headersOf(orderId, `${orderId}-e1`),
        json: p.order(orderId, sku),
      })),
    });
    await chargedOnce(orderId);
  });

  it('a google.protobuf.Timestamp field, the well-known file not registered as a reference', async () => {
    const sku = await p.seedStock(100);
    const orderId = uniqueName('o-wkt');
    // Registered as Confluent's serializers register it (no reference for the well-known
    // import); Apicurio's serde then writes with that schema.
    await new NodeRegistryProducer(registryUrl).register(
      p.h.topic,
      'PROTOBUF',
      ORDER_PLACED_WITH_TIMESTAMP,
    );
    await produceWithApicurioSerde({
      brokers: p.h.config.kafka.brokers,
      registryUrl,
      topic: p.h.topic,
      format: 'protobuf',
      schema: ORDER_PLACED_WITH_TIMESTAMP,
      register: 'latest',
      records: [1, 2].map(() => ({
        key: orderId,
        headers: headersOf(orderId, `${orderId}-e1`),
        json: { ...p.order(orderId, sku), placedAt: '2026-01-02T03:04:05.123Z' },
      })),
    });
    await chargedOnce(orderId);
  });

  it("in Apicurio's framing (content ID header, type reference) with a same-package import", async () => {
    const sku = await p.seedStock(100);
    const orderId = uniqueName('o-hdr');
    const commonPath = `${uniqueName('common')}.proto`;
    await produceWithApicurioSerde({
      brokers: p.h.config.kafka.brokers,
      registryUrl,
      topic: p.h.topic,
      format: 'protobuf',
      headers: 'contentId',
      schema: orderPlacedImporting(commonPath),
      imports: { [commonPath]: commonProto() },
      records: [1, 2].map(() => ({
        key: orderId,
        headers: headersOf(orderId, `${orderId}-e1`),
        json: p.order(orderId, sku),
      })),
    });
    await chargedOnce(orderId);
  });

  it("with Apicurio 3.x serde's defaults (the content ID in the value, a type reference)", async () => {
    const sku = await p.seedStock(100);
    const orderId = uniqueName('o-def');
    const commonPath = `${uniqueName('common')}.proto`;
    await produceWithApicurioSerde({
      brokers: p.h.config.kafka.brokers,
      registryUrl,
      topic: p.h.topic,
      format: 'protobuf',
      framing: 'defaults',
      schema: orderPlacedImporting(commonPath),
      imports: { [commonPath]: commonProto() },
      records: [1, 2].map(() => ({
        key: orderId,
        headers: headersOf(orderId, `${orderId}-e1`),
        json: p.order(orderId, sku),
      })),
    });
    await chargedOnce(orderId);
  });
});
