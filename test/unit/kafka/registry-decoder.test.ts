import { strict as assert } from 'node:assert';
import { MockClient } from '@confluentinc/schemaregistry/dist/mock-schemaregistry-client';
import type { Client } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import { SchemaId } from '@confluentinc/schemaregistry/dist/serde/serde';
import protobufjs from 'protobufjs';
import {
  createRegistryDecoder,
  FAILED_SCHEMA_RETRY_MS,
  SchemaRegistryError,
} from '../../../src/kafka/registry-decoder';

const CONFIG = { url: 'mock://registry', tls: {}, timeoutMs: 1000 };

/** The library's in-memory registry, counting the requests a decoder makes of it. */
function countingRegistry(): { client: Client; requests: string[] } {
  const requests: string[] = [];
  const mock = new MockClient({ baseURLs: ['mock://registry'] });
  const client = new Proxy(mock, {
    get(target, name, receiver) {
      const member = Reflect.get(target, name, receiver) as unknown;
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        if (name === 'getBySubjectAndId' || name === 'getSchemaMetadata')
          requests.push(`${String(name)} ${args.slice(0, 2).join(' ')}`);
        return (member as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { client, requests };
}

/** Registers a .proto under `subject` with `references`; its schema ID. */
function registerProto(
  client: Client,
  subject: string,
  schema: string,
  references: Array<{ name: string; subject: string; version: number }> = [],
): Promise<number> {
  return client.register(subject, { schemaType: 'PROTOBUF', schema, references }, false);
}

/** A Protobuf value in the wire format: schema ID, message indexes [0], the message. */
function protoValue(schemaId: number, files: string[], name: string, json: object): Buffer {
  const root = new protobufjs.Root();
  for (const file of files) protobufjs.parse(file, root, { keepCase: false });
  const type = root.lookupType(name);
  return Buffer.concat([
    new SchemaId('PROTOBUF', schemaId, undefined, [0]).idToBytes(),
    type.encode(type.fromObject(json)).finish(),
  ]);
}

const proto = (pkg: string, imports: string[], body: string) =>
  `syntax = "proto3";\npackage ${pkg};\n${imports.map((i) => `import "${i}";\n`).join('')}${body}\n`;

describe('the registry decoder: references, bounded caches and whose fault a failure is', () => {
  it('resolves references transitively (a reference of a reference)', async () => {
    const { client } = countingRegistry();
    const money = proto('m', [], 'message Money { int32 minor = 1; }');
    const line = proto('l', ['money.proto'], 'message Line { m.Money price = 1; }');
    const order = proto('o', ['line.proto'], 'message Order { l.Line line = 1; }');
    await registerProto(client, 'money', money);
    await registerProto(client, 'line', line, [
      { name: 'money.proto', subject: 'money', version: 1 },
    ]);
    const id = await registerProto(client, 't-value', order, [
      { name: 'line.proto', subject: 'line', version: 1 },
    ]);
    const value = protoValue(id, [money, line, order], 'o.Order', {
      line: { price: { minor: 5 } },
    });
    const result = await createRegistryDecoder(CONFIG, { client }).decode('t', value);
    assert.deepEqual(result, {
      ok: true,
      decoded: { value: { line: { price: { minor: 5 } } }, schemaId: id, format: 'PROTOBUF' },
    });
  });

  it('a schema the decoder cannot read is schema-unsupported, cached as failed for a while', async () => {
    const { client, requests } = countingRegistry();
    const broken = proto('b', ['vendor/extra.proto'], 'message B { vendor.Extra e = 1; }');
    const id = await registerProto(client, 't-value', broken);
    let now = 1_000_000;
    const decoder = createRegistryDecoder(CONFIG, { client, now: () => now });
    const value = Buffer.concat([
      new SchemaId('PROTOBUF', id, undefined, [0]).idToBytes(),
      Buffer.from([]),
    ]);
    const first = await decoder.decode('t', value);
    assert.equal(first.ok, false);
    assert.equal(!first.ok && first.reason, 'schema-unsupported');
    assert.match(
      !first.ok ? first.error : '',
      /cannot be read by the bridge's decoder: .*vendor\/extra\.proto/,
    );
    await decoder.decode('t', value);
    assert.equal(requests.length, 1, 'the second value did not fetch the schema again');
    now += FAILED_SCHEMA_RETRY_MS + 1;
    await decoder.decode('t', value);
    assert.equal(requests.length, 2, 'after the retry time the schema is tried again');
  });

  it('bytes that do not decode are unparseable; a schema ID the registry lacks throws (the environment)', async () => {
    const { client } = countingRegistry();
    const schema = JSON.stringify({
      type: 'record',
      name: 'R',
      fields: [{ name: 's', type: 'string' }],
    });
    const id = await client.register('t-value', { schemaType: 'AVRO', schema }, false);
    const decoder = createRegistryDecoder(CONFIG, { client });
    const header = new SchemaId('AVRO', id).idToBytes();
    const bad = await decoder.decode('t', Buffer.concat([header, Buffer.from([0x01, 0xff])]));
    assert.equal(!bad.ok && bad.reason, 'unparseable');
    assert.match(!bad.ok ? bad.error : '', /value does not decode with schema \d+ \(AVRO\)/);
    const unknown = new SchemaId('AVRO', id + 1000).idToBytes();
    await assert.rejects(decoder.decode('t', Buffer.concat([unknown, Buffer.from([0])])), (err) => {
      assert.ok(err instanceof SchemaRegistryError);
      assert.equal(err.status, 404);
      return true;
    });
  });

  it('a schema with data-contract rules is schema-unsupported (no rule is run or skipped silently)', async () => {
    const { client } = countingRegistry();
    const schema = JSON.stringify({
      type: 'record',
      name: 'R',
      fields: [{ name: 's', type: 'string' }],
    });
    const id = await client.register(
      't-value',
      {
        schemaType: 'AVRO',
        schema,
        ruleSet: {
          domainRules: [
            { name: 'encrypt-pii', kind: 'TRANSFORM', mode: 'WRITEREAD', type: 'ENCRYPT' },
          ],
        },
      } as never,
      false,
    );
    const result = await createRegistryDecoder(CONFIG, { client }).decode(
      't',
      Buffer.concat([new SchemaId('AVRO', id).idToBytes(), Buffer.from([0])]),
    );
    assert.equal(!result.ok && result.reason, 'schema-unsupported');
    assert.match(!result.ok ? result.error : '', /data-contract rules .*encrypt-pii/);
  });

  it('compiled schemas are an LRU by count: the least recently used is fetched again', async () => {
    const { client, requests } = countingRegistry();
    const decoder = createRegistryDecoder(CONFIG, { client, cacheSize: 2 });
    const values: Buffer[] = [];
    for (const name of ['A', 'B', 'C']) {
      const schema = JSON.stringify({ type: 'record', name, fields: [] });
      const id = await client.register('t-value', { schemaType: 'AVRO', schema }, false);
      values.push(new SchemaId('AVRO', id).idToBytes());
    }
    const [a, b, c] = values as [Buffer, Buffer, Buffer];
    for (const value of [a, b, a, c]) assert.ok((await decoder.decode('t', value)).ok);
    assert.equal(requests.length, 3, 'A, B, C fetched once each; A read again from the cache');
    await decoder.decode('t', a);
    assert.equal(requests.length, 3, 'A was used more recently than B, so B was dropped');
    await decoder.decode('t', b);
    assert.equal(requests.length, 4, 'B is fetched again');
  });
});
