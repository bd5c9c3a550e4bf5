import { strict as assert } from 'node:assert';
import protobufjs from 'protobufjs';
import { SchemaId } from '@confluentinc/schemaregistry/dist/serde/serde';
import { parseProtoSchema } from '../../../src/kafka/registry-protobuf';

/** Bytes of `json` as message `name`, encoded from a root holding every file given. */
function encode(files: string[], name: string, json: Record<string, unknown>): Buffer {
  const root = new protobufjs.Root();
  for (const file of files) protobufjs.parse(file, root, { keepCase: false });
  root.addJSON(protobufjs.common.get('google/protobuf/timestamp.proto')!.nested!);
  const type = root.lookupType(name);
  return Buffer.from(type.encode(type.fromObject(json)).finish());
}

/** Confluent's message indexes for `indexes` (its own SchemaId writer), then the message. */
function withIndexes(indexes: number[], message: Buffer): Buffer {
  const header = new SchemaId('PROTOBUF', 1, undefined, indexes).idToBytes();
  return Buffer.concat([header.subarray(5), message]);
}

/** Apicurio's type reference (`Ref { string name = 1; }`, length-delimited), then the message. */
function withTypeRef(name: string, message: Buffer): Buffer {
  const ref = protobufjs.Writer.create().uint32(10).string(name).finish();
  return Buffer.concat([protobufjs.Writer.create().uint32(ref.length).finish(), ref, message]);
}

const NESTED = `syntax = "proto3";
package shop;
message Order {
  enum Kind { KIND_UNSPECIFIED = 0; }
  map<string, int32> counts = 1;
  message Line { string sku = 1; }
  message Totals {
    message Tax { int32 minor = 1; }
    int32 minor = 1;
  }
}
message Refund { string order_id = 1; }
`;

const COMMON = `syntax = "proto3";
package shop;
message Money { string currency = 1; int64 minor = 2; }
`;

const PLACED = `syntax = "proto3";
package shop;
import "common.proto";
message OrderPlaced { string order_id = 1; Money total = 2; }
`;

describe('Protobuf registry values: the message the value names, as its own type', () => {
  it('message indexes count the own file, nested messages by their own declarations', () => {
    const schema = parseProtoSchema(NESTED);
    const tax = encode([NESTED], 'shop.Order.Totals.Tax', { minor: 19 });
    // Order is 0, Refund 1; in Order, Line is 0 and Totals 1 (the enum and the map entry are
    // not messages a Confluent index counts); in Totals, Tax is 0.
    assert.deepEqual(schema.decode(withIndexes([0, 1, 0], tax), 'wire-format'), { minor: 19 });
    const refund = encode([NESTED], 'shop.Refund', { orderId: 'o-1' });
    assert.deepEqual(schema.decode(withIndexes([1], refund), 'wire-format'), { orderId: 'o-1' });
    assert.throws(
      () => schema.decode(withIndexes([2], refund), 'wire-format'),
      /message indexes \[2\] name no message of the schema/,
    );
  });

  it('a referenced file of the same package does not shift the indexes', () => {
    const schema = parseProtoSchema(PLACED, new Map([['common.proto', COMMON]]));
    const placed = encode([COMMON, PLACED], 'shop.OrderPlaced', {
      orderId: 'o-1',
      total: { currency: 'EUR', minor: 500 },
    });
    assert.deepEqual(schema.decode(withIndexes([0], placed), 'wire-format'), {
      orderId: 'o-1',
      total: { currency: 'EUR', minor: '500' },
    });
  });

  it("a proto2 group is a field, not a message an index counts (as Confluent's parser has it)", () => {
    const proto2 = `syntax = "proto2";
package g;
message Outer {
  optional group Legacy = 1 { optional int32 x = 2; }
  message Inner { optional string name = 1; }
}`;
    const inner = encode([proto2], 'g.Outer.Inner', { name: 'n' });
    assert.deepEqual(parseProtoSchema(proto2).decode(withIndexes([0, 0], inner), 'wire-format'), {
      name: 'n',
    });
  });

  it("imports of Google's well-known types resolve without references", () => {
    const proto = `syntax = "proto3";
package wk;
import "google/protobuf/timestamp.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/wrappers.proto";
import "google/protobuf/duration.proto";
message Seen {
  google.protobuf.Timestamp at = 1;
  google.protobuf.Struct extra = 2;
  google.protobuf.Int64Value big = 3;
  google.protobuf.Duration took = 4;
}`;
    const root = new protobufjs.Root();
    for (const name of ['timestamp', 'struct', 'wrappers', 'duration'])
      root.addJSON(protobufjs.common.get(`google/protobuf/${name}.proto`)!.nested!);
    protobufjs.parse(proto, root);
    const type = root.lookupType('wk.Seen');
    const bytes = type
      .encode(
        type.fromObject({
          at: { seconds: 1_767_225_600, nanos: 5_000_000 },
          extra: { fields: { note: { stringValue: 'hi' }, n: { numberValue: 2 } } },
          big: { value: '9223372036854775807' },
          took: { seconds: 90, nanos: 0 },
        }),
      )
      .finish();
    assert.deepEqual(
      parseProtoSchema(proto).decode(withIndexes([0], Buffer.from(bytes)), 'wire-format'),
      {
        at: '2026-01-01T00:00:00.005Z',
        extra: { note: 'hi', n: 2 },
        big: '9223372036854775807',
        took: '90s',
      },
    );
  });

  it('custom options: descriptor.proto resolves, an options-only import (confluent/meta.proto) need not', () => {
    const proto = `syntax = "proto3";
package opt;
import "google/protobuf/descriptor.proto";
import "confluent/meta.proto";
extend google.protobuf.FieldOptions { string pii = 50001; }
message Customer {
  string email = 1 [(pii) = "email", (confluent.field_meta).doc = "contact"];
}`;
    // The same message without its options, for protobufjs to encode.
    const plain = 'syntax = "proto3"; package opt; message Customer { string email = 1; }';
    const customer = encode([plain], 'opt.Customer', { email: 'a@b.c' });
    assert.deepEqual(parseProtoSchema(proto).decode(withIndexes([0], customer), 'wire-format'), {
      email: 'a@b.c',
    });
  });

  it('a well-known file the registry does hold as a reference is read from it', () => {
    const timestamp = `syntax = "proto3";
package google.protobuf;
message Timestamp { int64 seconds = 1; int32 nanos = 2; }`;
    const proto = `syntax = "proto3";
package wk;
import "google/protobuf/timestamp.proto";
message At { google.protobuf.Timestamp at = 1; }`;
    const schema = parseProtoSchema(
      proto,
      new Map([['google/protobuf/timestamp.proto', timestamp]]),
    );
    const at = encode([proto], 'wk.At', { at: { seconds: 0, nanos: 0 } });
    assert.deepEqual(schema.decode(withIndexes([0], at), 'wire-format'), {
      at: '1970-01-01T00:00:00Z',
    });
  });

  it('an import nothing provides fails the schema, naming the import', () => {
    const proto = `syntax = "proto3";
package x;
import "billing/money.proto";
message Paid { billing.Money amount = 1; }`;
    assert.throws(
      () => parseProtoSchema(proto),
      /imports without a reference or a well-known definition: billing\/money\.proto/,
    );
  });

  it("Apicurio's type reference names a top-level message, in headers and as the wire format's fallback", () => {
    const schema = parseProtoSchema(NESTED);
    const refund = encode([NESTED], 'shop.Refund', { orderId: 'o-7' });
    assert.deepEqual(schema.decode(withTypeRef('Refund', refund), 'apicurio-headers'), {
      orderId: 'o-7',
    });
    // Read as Confluent's indexes, the reference's bytes name no message (the first index is 5).
    assert.deepEqual(schema.decode(withTypeRef('Refund', refund), 'wire-format'), {
      orderId: 'o-7',
    });
    assert.throws(
      () => schema.decode(withTypeRef('Missing', refund), 'apicurio-headers'),
      /type reference "Missing" names no message of the schema/,
    );
  });
});
