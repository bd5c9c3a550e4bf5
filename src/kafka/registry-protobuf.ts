import type { Namespace, Type } from 'protobufjs';

/**
 * Protobuf values of the wire format, decoded from the schema's .proto text with protobufjs.
 * Confluent's Node deserializer asks the registry for the schema as a serialized descriptor
 * (`format=serialized`, base64), which Apicurio 3.3 answers with the raw bytes instead, so it
 * cannot read Apicurio's Protobuf schemas; the .proto text every registry serves can be read.
 * The message is the one the value's message indexes name (the wire format's list after the
 * schema ID: top-level message, then nested ones), as Confluent's and Apicurio's serializers
 * write it.
 */

/** A parsed .proto file (and the files it references) whose message types can be looked up. */
export interface ProtoSchema {
  decode(indexes: readonly number[], payload: Uint8Array): unknown;
}

type Protobufjs = typeof import('protobufjs');

/** Messages of a namespace in declaration order (what a message index counts). */
function messagesOf(ns: Namespace, lib: Protobufjs): Type[] {
  return ns.nestedArray.filter((n): n is Type => n instanceof lib.Type);
}

/** The namespace a file's top-level messages live in: its package's, or the root. */
function fileNamespace(root: Namespace, pkg: string | undefined): Namespace {
  return pkg ? (root.lookup(pkg) as Namespace) : root;
}

/**
 * Parses `text` (after the `references`' texts, into one root) into a ProtoSchema. Throws on
 * a schema protobufjs cannot parse.
 */
export function parseProtoSchema(text: string, references: readonly string[] = []): ProtoSchema {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded with the registry client
  const lib = require('protobufjs') as Protobufjs;
  const root = new lib.Root();
  for (const reference of references) lib.parse(reference, root, { keepCase: false });
  const parsed = lib.parse(text, root, { keepCase: false });
  root.resolveAll();
  const top = fileNamespace(root, parsed.package);
  return {
    decode(indexes, payload) {
      let type: Type | undefined;
      let candidates = messagesOf(top, lib);
      for (const index of indexes.length === 0 ? [0] : indexes) {
        type = candidates[index];
        if (!type) throw new RangeError(`message index ${index} is not in the schema`);
        candidates = messagesOf(type, lib);
      }
      const message = type!.decode(payload);
      // Protobuf's JSON mapping: camelCase names, enums by name, 64-bit integers as decimal
      // text, bytes base64, every field present (zero values too), so two encodings of one
      // message fingerprint alike.
      return type!.toObject(message, {
        longs: String,
        enums: String,
        bytes: String,
        defaults: true,
        arrays: true,
        objects: true,
      });
    },
  };
}
