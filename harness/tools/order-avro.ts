import { SchemaRegistryClient } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import { AvroSerializer } from '@confluentinc/schemaregistry/dist/serde/avro';
import { SerdeType, SubjectNameStrategyType } from '@confluentinc/schemaregistry/dist/serde/serde';
import { HEADER } from '../../src/events/envelope';
import type { KafkaRecord } from '../../src/events/event-message';
import { waitForSchemaRegistry } from '../stack/schema-registry';

/**
 * OrderPlaced as Avro: the fields of src/domains/orders/order-events.ts, so the order route
 * validates the decoded record as it is. The demo publishes a share of its orders with it,
 * and the registry tests write it with Apicurio's Java serde and with Node.
 */
export const ORDER_PLACED_AVRO = JSON.stringify({
  type: 'record',
  name: 'OrderPlaced',
  namespace: 'onceflow.test',
  fields: [
    { name: 'orderId', type: 'string' },
    { name: 'customerId', type: 'string' },
    { name: 'email', type: 'string' },
    { name: 'currency', type: 'string' },
    {
      name: 'items',
      type: {
        type: 'array',
        items: {
          type: 'record',
          name: 'OrderLine',
          fields: [
            { name: 'sku', type: 'string' },
            { name: 'quantity', type: 'int' },
            { name: 'unitPriceMinor', type: 'long' },
          ],
        },
      },
    },
    { name: 'totalMinor', type: 'long' },
  ],
});

/** A record whose value is `{ data }` of a contract-conforming OrderPlaced, with headers. */
function orderPlacedData(record: KafkaRecord): unknown {
  if (String(record.headers[HEADER.eventType]) !== 'OrderPlaced') return undefined;
  try {
    return (JSON.parse(record.value) as { data?: unknown }).data;
  } catch {
    return undefined; // poison stays as it is
  }
}

/**
 * The records with every `1/share`-th OrderPlaced (each copy of an event alike, so its
 * redeliveries stay byte-equal) re-encoded: its data as Avro through the registry at `url`
 * (the Confluent wire format, the schema registered under `<topic>-value`), the envelope
 * headers kept. Returns the records and how many were encoded.
 */
export async function withAvroOrders(
  records: KafkaRecord[],
  options: { url: string; topic: string; share: number },
): Promise<{
  records: Array<Omit<KafkaRecord, 'value'> & { value: string | Buffer }>;
  avro: number;
}> {
  if (options.share <= 0) return { records, avro: 0 };
  await waitForSchemaRegistry(options.url);
  const client = new SchemaRegistryClient({ baseURLs: [options.url] });
  const subject = `${options.topic}-value`;
  const id = await client.register(subject, { schemaType: 'AVRO', schema: ORDER_PLACED_AVRO });
  // TOPIC: the subject is `<topic>-value`, no `/associations` request Apicurio does not serve.
  const serializer = new AvroSerializer(client, SerdeType.VALUE, {
    useSchemaId: id,
    subjectNameStrategyType: SubjectNameStrategyType.TOPIC,
  } as never);
  const every = Math.max(1, Math.round(1 / Math.min(1, options.share)));
  let avro = 0;
  let seen = 0;
  const picked = new Map<string, boolean>();
  const out = [];
  for (const record of records) {
    const data = orderPlacedData(record);
    if (data === undefined) {
      out.push(record);
      continue;
    }
    const eventId = String(record.headers[HEADER.eventId]);
    let asAvro = picked.get(eventId);
    if (asAvro === undefined) picked.set(eventId, (asAvro = seen++ % every === 0));
    if (!asAvro) {
      out.push(record);
      continue;
    }
    const { [HEADER.contentType]: _json, ...headers } = record.headers;
    out.push({ ...record, headers, value: await serializer.serialize(options.topic, data) });
    avro++;
  }
  return { records: out, avro };
}
