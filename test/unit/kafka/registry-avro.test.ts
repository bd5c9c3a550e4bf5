import { strict as assert } from 'node:assert';
import { MockClient } from '@confluentinc/schemaregistry/dist/mock-schemaregistry-client';
import { AvroSerializer } from '@confluentinc/schemaregistry/dist/serde/avro';
import { SerdeType } from '@confluentinc/schemaregistry/dist/serde/serde';
import avro from 'avsc';
import { createRegistryDecoder } from '../../../src/kafka/registry-decoder';

const CONFIG = { url: 'mock://registry', tls: {}, timeoutMs: 1000 };

/**
 * Avro bytes of `value` in the wire format, written by Confluent's own serializer (its schema
 * registered under `<topic>-value`).
 */
async function avroValue(client: MockClient, topic: string, schema: string, value: unknown) {
  const id = await client.register(`${topic}-value`, { schemaType: 'AVRO', schema }, false);
  const serializer = new AvroSerializer(client, SerdeType.VALUE, { useSchemaId: id } as never);
  return serializer.serialize(topic, value);
}

const LONGS = JSON.stringify({
  type: 'record',
  name: 'Snowflake',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'at', type: { type: 'long', logicalType: 'timestamp-nanos' } },
    { name: 'maybe', type: ['null', 'long'] },
    { name: 'either', type: ['int', 'long'] },
  ],
});

/** avsc's own encoding of a Snowflake with bigint longs (its stock long refuses them). */
function snowflakeBytes(id: bigint, at: bigint, maybe: bigint | null): Buffer {
  const long = avro.types.LongType.__with({
    fromBuffer: (b: Buffer) => b.readBigInt64LE(0),
    toBuffer: (n: bigint) => {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(n);
      return b;
    },
    fromJSON: BigInt,
    toJSON: String,
    isValid: (n: unknown) => typeof n === 'bigint',
    compare: () => 0,
  });
  const type = avro.Type.forSchema(JSON.parse(LONGS) as avro.Schema, {
    typeHook: (s: avro.Schema) =>
      s === 'long' || (s as { type?: unknown }).type === 'long' ? long : undefined,
    wrapUnions: true,
  });
  return type.toBuffer({
    id,
    at,
    maybe: maybe === null ? null : { long: maybe },
    either: { long: 5n },
  });
}

describe('Avro registry values: every long decodes, as text beyond 2^53', () => {
  it('2^63 − 1, −2^63 and a negative timestamp decode as their decimal text; safe longs as numbers', async () => {
    const client = new MockClient({ baseURLs: ['mock://registry'] });
    const decoder = createRegistryDecoder(CONFIG, { client });
    // The schema registered, then the bytes of its ID and the record avsc writes.
    const header = (
      await avroValue(client, 't', LONGS, { id: 1, at: 1, maybe: null, either: { int: 1 } })
    ).subarray(0, 5);
    const decode = async (bytes: Buffer) => {
      const result = await decoder.decode('t', Buffer.concat([header, bytes]));
      assert.ok(result.ok, JSON.stringify(result));
      return result.decoded.value;
    };
    assert.deepEqual(
      await decode(snowflakeBytes(2n ** 63n - 1n, -(2n ** 63n), -1_700_000_000_000_000_000n)),
      {
        id: '9223372036854775807',
        at: '-9223372036854775808',
        maybe: '-1700000000000000000',
        either: { long: 5 },
      },
    );
    assert.deepEqual(await decode(snowflakeBytes(42n, -7n, null)), {
      id: 42,
      at: -7,
      maybe: null,
      either: { long: 5 },
    });
  });

  it('a union of int and long stays wrapped, as avsc wraps it for its own long (same fingerprint)', async () => {
    const client = new MockClient({ baseURLs: ['mock://registry'] });
    const value = await avroValue(client, 'u', LONGS, {
      id: 1,
      at: 2,
      maybe: 3,
      either: { int: 4 },
    });
    const result = await createRegistryDecoder(CONFIG, { client }).decode('u', value);
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.decoded.value, { id: 1, at: 2, maybe: 3, either: { int: 4 } });
  });

  describe('array and map counts are bounded by the bytes that carry them', () => {
    const LISTS = JSON.stringify({
      type: 'record',
      name: 'Lists',
      fields: [
        { name: 'ints', type: { type: 'array', items: 'int' } },
        { name: 'nulls', type: { type: 'array', items: { type: 'array', items: 'null' } } },
        { name: 'tags', type: { type: 'map', values: 'string' } },
      ],
    });

    /** Decodes `body` (Avro bytes of a Lists) through a decoder, as the bridge would. */
    async function decodeLists(body: number[]) {
      const client = new MockClient({ baseURLs: ['mock://registry'] });
      const valid = await avroValue(client, 'l', LISTS, { ints: [], nulls: [], tags: {} });
      return createRegistryDecoder(CONFIG, { client }).decode(
        'l',
        Buffer.concat([valid.subarray(0, 5), Buffer.from(body)]),
      );
    }

    it('valid arrays, nested arrays of nulls and maps decode', async () => {
      // ints [1, 2]; nulls [[null, null, null]]; tags {a: "b"}
      const result = await decodeLists([4, 2, 4, 0, 2, 6, 0, 0, 2, 2, 0x61, 2, 0x62, 0]);
      assert.ok(result.ok, JSON.stringify(result));
      assert.deepEqual(result.decoded.value, {
        ints: [1, 2],
        nulls: [[null, null, null]],
        tags: { a: 'b' },
      });
    });

    it('a few bytes declaring a billion items are unparseable, not an out-of-memory crash', async () => {
      // ints: one block of 2^30 items (zigzag varint), then nothing.
      const result = await decodeLists([0x80, 0x80, 0x80, 0x80, 0x08]);
      assert.equal(!result.ok && result.reason, 'unparseable');
      assert.match(!result.ok ? result.error : '', /declares more items than the value's/);
    });

    it('items that take no bytes are bounded too, across nested arrays', async () => {
      // ints []; nulls: 200 arrays of 1,000 nulls each (each inner block two bytes).
      const inner = [0xd0, 0x0f, 0]; // 1,000 items, then the end of the inner array
      const body = [0, 0x90, 0x03, ...Array.from({ length: 200 }, () => inner).flat(), 0, 0];
      const result = await decodeLists(body);
      assert.equal(!result.ok && result.reason, 'unparseable');
    });
  });
});
