import { strict as assert } from 'node:assert';
import { MockClient } from '@confluentinc/schemaregistry/dist/mock-schemaregistry-client';
import protobufjs from 'protobufjs';
import avro from 'avsc';
import { APICURIO_VALUE_HEADER, registryFramingOf } from '../../../src/events/registry-framing';
import { createRegistryDecoder } from '../../../src/kafka/registry-decoder';

const CONFIG = { url: 'mock://registry', tls: {}, timeoutMs: 1000 };

/** An 8-byte big-endian ID, as Apicurio's DefaultHeadersHandler writes it. */
function idHeader(id: bigint | number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(id));
  return b;
}

const ACCOUNT = JSON.stringify({
  type: 'record',
  name: 'Account',
  fields: [
    { name: 'note', type: ['null', 'string'] },
    { name: 'balance', type: 'long' },
  ],
});

describe("Apicurio's header framing: the schema's ID in headers, the payload alone", () => {
  it('the content ID header wins over a payload that happens to start like the wire format', () => {
    // Avro of {note: null, balance: 0}: a zero byte first, five bytes in all.
    const payload = Buffer.from([0, 0, 0, 0, 0]);
    assert.deepEqual(registryFramingOf(payload, {}), {
      kind: 'wire-format',
      schemaId: 0,
      payloadOffset: 5,
    });
    assert.deepEqual(
      registryFramingOf(payload, { [APICURIO_VALUE_HEADER.contentId]: idHeader(42) }),
      { kind: 'apicurio-headers', schemaId: 42, payloadOffset: 0 },
    );
    assert.equal(registryFramingOf(Buffer.from('{"a":1}'), { other: 'x' }), undefined);
  });

  it('an Avro value framed by its content ID decodes through the Confluent-compatible API', async () => {
    const client = new MockClient({ baseURLs: ['mock://registry'] });
    const id = await client.register('acct-value', { schemaType: 'AVRO', schema: ACCOUNT }, false);
    const payload = avro.Type.forSchema(JSON.parse(ACCOUNT) as avro.Schema).toBuffer({
      note: null,
      balance: 12,
    });
    const result = await createRegistryDecoder(CONFIG, { client }).decode('acct', payload, {
      [APICURIO_VALUE_HEADER.contentId]: idHeader(id),
      [APICURIO_VALUE_HEADER.encoding]: 'BINARY',
    });
    assert.deepEqual(result, {
      ok: true,
      decoded: { value: { note: null, balance: 12 }, schemaId: id, format: 'AVRO' },
    });
  });

  it("a Protobuf value with Apicurio's type reference (its serde's default) decodes as the named message", async () => {
    const proto = `syntax = "proto3";\npackage p;\nmessage First { string a = 1; }\nmessage Second { string b = 1; }\n`;
    const client = new MockClient({ baseURLs: ['mock://registry'] });
    const id = await client.register('p-value', { schemaType: 'PROTOBUF', schema: proto }, false);
    const second = protobufjs.parse(proto).root.lookupType('p.Second');
    const ref = protobufjs.Writer.create().uint32(10).string('Second').finish();
    const payload = Buffer.concat([
      Buffer.from([ref.length]),
      ref,
      second.encode(second.fromObject({ b: 'yes' })).finish(),
    ]);
    const result = await createRegistryDecoder(CONFIG, { client }).decode('p', payload, {
      [APICURIO_VALUE_HEADER.contentId]: idHeader(id),
    });
    assert.deepEqual(result, {
      ok: true,
      decoded: { value: { b: 'yes' }, schemaId: id, format: 'PROTOBUF' },
    });
  });

  it('a global ID (another numbering than the API serves) is schema-unsupported, saying which setting to use', async () => {
    const decoder = createRegistryDecoder(CONFIG, {
      client: new MockClient({ baseURLs: ['mock://r'] }),
    });
    const result = await decoder.decode('t', Buffer.from([2, 24]), {
      [APICURIO_VALUE_HEADER.globalId]: idHeader(7),
    });
    assert.equal(!result.ok && result.reason, 'schema-unsupported');
    assert.match(
      !result.ok ? result.error : '',
      /apicurio\.value\.globalId.*apicurio\.registry\.use-id=contentId/,
    );
  });

  it('a malformed ID header is the message’s fault (unparseable); Avro in JSON encoding is not read', async () => {
    const client = new MockClient({ baseURLs: ['mock://registry'] });
    const id = await client.register('acct-value', { schemaType: 'AVRO', schema: ACCOUNT }, false);
    const decoder = createRegistryDecoder(CONFIG, { client });
    const short = await decoder.decode('acct', Buffer.from([2]), {
      [APICURIO_VALUE_HEADER.contentId]: Buffer.from([0, 0, 0, 1]),
    });
    assert.equal(!short.ok && short.reason, 'unparseable');
    assert.match(!short.ok ? short.error : '', /holds 4 bytes, not an 8-byte ID/);
    const json = await decoder.decode('acct', Buffer.from('{"note":null,"balance":1}'), {
      [APICURIO_VALUE_HEADER.contentId]: idHeader(id),
      [APICURIO_VALUE_HEADER.encoding]: 'JSON',
    });
    assert.equal(!json.ok && json.reason, 'schema-unsupported');
    assert.match(!json.ok ? json.error : '', /JSON encoding/);
  });
});
