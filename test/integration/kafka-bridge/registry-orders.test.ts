import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import type { IHeaders } from 'kafkajs';
import { HEADER } from '../../../src/events/envelope';
import type { OrderPlacedData } from '../../../src/domains/orders/order-events';
import { OrderPipeline } from '../domains/orders/order-pipeline';
import { produceWithApicurioSerde } from '../../support/java-registry-producer';
import { NodeRegistryProducer, stackRegistryUrl } from '../../support/node-registry-producer';
import { ORDER_PLACED_AVRO, ORDER_PLACED_PROTO } from '../../support/registry-schemas';
import { uniqueName } from '../../support/services';

/** The envelope headers of one OrderPlaced; the registry-encoded value is its data. */
function headersOf(orderId: string, eventId: string = randomUUID()): IHeaders {
  return {
    [HEADER.eventId]: eventId,
    [HEADER.eventType]: 'OrderPlaced',
    [HEADER.aggregateId]: orderId,
    [HEADER.aggregateVersion]: '1',
  };
}

/**
 * Orders whose data is Avro or Protobuf through the stack's registry, written by Apicurio's
 * own Java serializers (Confluent-compatible mode) and by Confluent's Node serializers, each
 * sent twice (a redelivery, and a re-send under a new event ID): every order is charged once,
 * through the real bridge, worker and sandbox providers.
 */
for (const format of ['avro', 'protobuf'] as const) {
  describe(`bridge: ${format} orders through the schema registry, charged once`, function () {
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

    it(`${format} from Apicurio's Java serde and from Node: each order charged once`, async () => {
      const sku = await p.seedStock(100);
      const fromJava = uniqueName('o-java');
      const fromNode = uniqueName('o-node');
      const order = (orderId: string): OrderPlacedData => p.order(orderId, sku);
      const schema = format === 'avro' ? ORDER_PLACED_AVRO : ORDER_PLACED_PROTO;
      await produceWithApicurioSerde({
        brokers: p.h.config.kafka.brokers,
        registryUrl,
        topic: p.h.topic,
        format,
        schema,
        records: [
          { key: fromJava, headers: headersOf(fromJava, 'java-1'), json: order(fromJava) },
          { key: fromJava, headers: headersOf(fromJava, 'java-1'), json: order(fromJava) },
          { key: fromJava, headers: headersOf(fromJava), json: order(fromJava) },
        ],
      });
      const node = new NodeRegistryProducer(registryUrl);
      const encode = (data: OrderPlacedData) =>
        format === 'avro'
          ? node.avro(p.h.topic, schema, data)
          : node.protobuf(p.h.topic, schema, data as unknown as Record<string, unknown>);
      const value = await encode(order(fromNode));
      assert.equal(value[0], 0, 'the wire format: magic byte 0');
      await p.h.produce([
        { key: fromNode, value, headers: headersOf(fromNode, 'node-1') },
        { key: fromNode, value, headers: headersOf(fromNode, 'node-1') },
        { key: fromNode, value: await encode(order(fromNode)), headers: headersOf(fromNode) },
      ]);
      await p.h.waitUntilAllCommitted(120_000);

      for (const orderId of [fromJava, fromNode]) {
        const [run] = await p.runsOf(orderId, 1);
        assert.equal(run!.result.outcome, 'completed', `${orderId}: ${JSON.stringify(run)}`);
        const ledger = await p.ledger(orderId);
        assert.equal(ledger.charges.length, 1, `${orderId}: charged once`);
        assert.equal(ledger.charges[0]!.amountMinor, 2500, `${orderId}: the decoded total`);
      }
      assert.equal(await p.h.ledgerCount(), 2, 'one start per order');
      assert.equal(await p.h.dlqSize(), 0, 'nothing dead-lettered');
    });
  });
}
