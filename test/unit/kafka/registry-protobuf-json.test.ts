import { strict as assert } from 'node:assert';
import protobufjs from 'protobufjs';
import { protoJsonMapper } from '../../../src/kafka/registry-protobuf-json';

const WELL_KNOWN = ['any', 'duration', 'timestamp', 'empty', 'struct', 'wrappers', 'field_mask'];

const PROTO = `syntax = "proto3";
package wk;
message All {
  google.protobuf.Timestamp at = 1;
  google.protobuf.Duration took = 2;
  google.protobuf.BoolValue flag = 3;
  google.protobuf.BytesValue blob = 4;
  google.protobuf.Struct extra = 5;
  google.protobuf.ListValue list = 6;
  google.protobuf.Empty nothing = 7;
  google.protobuf.FieldMask mask = 8;
  repeated google.protobuf.Any packed = 9;
  map<string, google.protobuf.Timestamp> stamps = 10;
  Note note = 11;
}
message Note { string text = 1; google.protobuf.Timestamp at = 2; }
`;

/** PROTO with the well-known types it uses, resolved. */
function protoRoot(): protobufjs.Root {
  const root = new protobufjs.Root();
  for (const name of WELL_KNOWN)
    root.addJSON(protobufjs.common.get(`google/protobuf/${name}.proto`)!.nested!);
  protobufjs.parse(PROTO, root, { keepCase: false });
  root.resolveAll();
  return root;
}

/** The JSON the mapper gives for `json` written as wk.All. */
function roundTrip(json: Record<string, unknown>): Record<string, unknown> {
  const root = protoRoot();
  const type = root.lookupType('wk.All');
  const decoded = type.decode(type.encode(type.fromObject(json)).finish());
  return protoJsonMapper(protobufjs, root)(type, decoded) as Record<string, unknown>;
}

const seconds = (iso: string) => Date.parse(iso) / 1000;

describe("Protobuf's JSON mapping of Google's well-known types", () => {
  it('a Timestamp is RFC 3339 text with 0, 3, 6 or 9 fractional digits', () => {
    const at = (s: number, nanos: number) => roundTrip({ at: { seconds: s, nanos } }).at;
    const t = seconds('2026-03-04T05:06:07Z');
    assert.equal(at(t, 0), '2026-03-04T05:06:07Z');
    assert.equal(at(t, 120_000_000), '2026-03-04T05:06:07.120Z');
    assert.equal(at(t, 120_500_000), '2026-03-04T05:06:07.120500Z');
    assert.equal(at(t, 1), '2026-03-04T05:06:07.000000001Z');
    assert.equal(at(seconds('0001-01-01T00:00:00Z'), 0), '0001-01-01T00:00:00Z');
  });

  it('a Timestamp beyond RFC 3339 stays the message it is (nothing lost)', () => {
    assert.deepEqual(roundTrip({ at: { seconds: 253_402_300_800, nanos: 0 } }).at, {
      seconds: '253402300800',
      nanos: 0,
    });
  });

  it('a Duration is seconds with a fraction and "s", signed', () => {
    assert.equal(roundTrip({ took: { seconds: 1, nanos: 500_000_000 } }).took, '1.500s');
    assert.equal(roundTrip({ took: { seconds: -3, nanos: -1000 } }).took, '-3.000001s');
    assert.equal(roundTrip({ took: { seconds: 0, nanos: 0 } }).took, '0s');
  });

  it('wrappers are their value, Struct and ListValue plain JSON, Empty {}, FieldMask text', () => {
    const json = roundTrip({
      flag: { value: false },
      blob: { value: Buffer.from('hi') },
      extra: {
        fields: {
          n: { numberValue: 1.5 },
          none: { nullValue: 0 },
          deep: { structValue: { fields: { ok: { boolValue: true } } } },
          list: { listValue: { values: [{ stringValue: 'a' }, { numberValue: 2 }] } },
        },
      },
      list: { values: [{ boolValue: false }] },
      nothing: {},
      mask: { paths: ['order_id', 'items.unit_price'] },
    });
    assert.equal(json.flag, false);
    assert.equal(json.blob, 'aGk=');
    assert.deepEqual(json.extra, { n: 1.5, none: null, deep: { ok: true }, list: ['a', 2] });
    assert.deepEqual(json.list, [false]);
    assert.deepEqual(json.nothing, {});
    assert.equal(json.mask, 'orderId,items.unitPrice');
  });

  it('an Any of a known type is that message with "@type"; of an unknown one, its bytes', () => {
    const note = protoRoot().lookupType('wk.Note');
    const bytes = Buffer.from(note.encode(note.fromObject({ text: 'x' })).finish());
    const json = roundTrip({
      packed: [
        { type_url: 'type.googleapis.com/wk.Note', value: bytes },
        { type_url: 'type.example.com/other.Thing', value: Buffer.from([1, 2]) },
      ],
    });
    assert.deepEqual(json.packed, [
      { '@type': 'type.googleapis.com/wk.Note', text: 'x', at: null },
      { '@type': 'type.example.com/other.Thing', value: 'AQI=' },
    ]);
  });

  it('well-known types inside maps and nested messages are mapped too', () => {
    const json = roundTrip({
      stamps: { first: { seconds: 0, nanos: 0 } },
      note: { text: 't', at: { seconds: 60, nanos: 0 } },
    });
    assert.deepEqual(json.stamps, { first: '1970-01-01T00:00:00Z' });
    assert.deepEqual(json.note, { text: 't', at: '1970-01-01T00:01:00Z' });
  });
});
