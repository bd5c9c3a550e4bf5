import type { Namespace, Reader, Root, Type } from 'protobufjs';
import { protoJsonMapper } from './registry-protobuf-json';

/**
 * Protobuf values of the registry, decoded from the schema's .proto text with protobufjs.
 * Confluent's Node deserializer asks the registry for the schema as a serialized descriptor
 * (`format=serialized`, base64), which Apicurio 3.3 answers with the raw bytes instead, so it
 * cannot read Apicurio's Protobuf schemas; the .proto text every registry serves can be read.
 *
 * Which message a value holds, the payload says before the message bytes, in one of two ways:
 * - Confluent's message indexes (its serializers; Apicurio's with `send-indexes`): a path of
 *   indexes counting the messages declared in the schema's OWN file (top-level, then nested in
 *   the one before), never those of a referenced file, even one sharing its package;
 * - Apicurio's type reference (its serializers' default, `send-type-ref`): a length-delimited
 *   message whose field 1 is the simple name of a top-level message of the file.
 * The wire format is read as message indexes first, Apicurio's headers framing as a type
 * reference first (each serde's default there); the other is tried when the first names no
 * message or its message does not decode.
 */

type Protobufjs = typeof import('protobufjs');

/** How the value named its schema (src/events/registry-framing.ts). */
export type ProtoFraming = 'wire-format' | 'apicurio-headers';

/** A parsed .proto file (with the files it imports) whose messages values can be decoded as. */
export interface ProtoSchema {
  /** The message `payload` (the value after its schema ID) holds, as Protobuf's JSON mapping. */
  decode(payload: Uint8Array, framing: ProtoFraming): unknown;
}

/** The deepest message index path read (messages nested deeper are not credible). */
const MAX_INDEX_DEPTH = 32;

/**
 * Google's well-known types, which serializers (Confluent's) do not register as references:
 * protobufjs's bundled definitions, each with the well-known files it imports.
 */
const WELL_KNOWN_FILES: Record<
  string,
  { json: (lib: Protobufjs) => object | null; imports?: string[] }
> = {
  ...Object.fromEntries(
    ['any', 'duration', 'timestamp', 'empty', 'struct', 'wrappers', 'field_mask'].map((name) => [
      `google/protobuf/${name}.proto`,
      { json: (lib: Protobufjs) => lib.common.get(`google/protobuf/${name}.proto`) },
    ]),
  ),
  /* eslint-disable @typescript-eslint/no-require-imports -- protobufjs's bundled definitions */
  'google/protobuf/descriptor.proto': {
    json: () => require('protobufjs/google/protobuf/descriptor.json') as object,
  },
  'google/protobuf/source_context.proto': {
    json: () => require('protobufjs/google/protobuf/source_context.json') as object,
  },
  'google/protobuf/type.proto': {
    json: () => require('protobufjs/google/protobuf/type.json') as object,
    imports: ['google/protobuf/any.proto', 'google/protobuf/source_context.proto'],
  },
  'google/protobuf/api.proto': {
    json: () => require('protobufjs/google/protobuf/api.json') as object,
    imports: ['google/protobuf/source_context.proto', 'google/protobuf/type.proto'],
  },
  /* eslint-enable @typescript-eslint/no-require-imports */
};

/**
 * Messages declared directly in `ns`, in declaration order: what a message index counts. A
 * proto2 group is a nested type to protobufjs but a field to the parsers that count indexes
 * (Square's Wire, in Confluent's and Apicurio's serializers), so it is not counted.
 */
function messagesOf(ns: Namespace, lib: Protobufjs): Type[] {
  // `group` is set by protobufjs's parser and kept in its JSON, but not in its typings.
  return ns.nestedArray.filter(
    (n): n is Type => n instanceof lib.Type && !(n as { group?: boolean }).group,
  );
}

/** The namespace a file's top-level messages live in: its package's, or the root. */
function fileNamespace(root: Namespace, pkg: string | undefined): Namespace {
  return pkg ? (root.lookup(pkg) as Namespace) : root;
}

/** Adds the well-known file `path` (and those it imports) unless loaded; false when unknown. */
function addWellKnown(root: Root, path: string, loaded: Set<string>, lib: Protobufjs): boolean {
  const file = WELL_KNOWN_FILES[path];
  if (!file) return false;
  if (loaded.has(path)) return true;
  loaded.add(path);
  for (const dep of file.imports ?? []) addWellKnown(root, dep, loaded, lib);
  root.addJSON((file.json(lib) as { nested: Parameters<Root['addJSON']>[0] }).nested);
  return true;
}

/**
 * Parses `text` with `references` (import path → .proto text, the schema's references and
 * theirs, transitively) into a ProtoSchema. Imports that no reference provides are Google's
 * well-known types when they are one. Throws when the files do not parse or resolve (a type
 * nothing defines): the schema's problem or this parser's limit, never a value's.
 */
export function parseProtoSchema(
  text: string,
  references: ReadonlyMap<string, string> = new Map(),
): ProtoSchema {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded with the registry client
  const lib = require('protobufjs') as Protobufjs;
  const root = new lib.Root();
  // The schema's own file first, alone, so its own messages are known before any other
  // file adds messages to the same package.
  const own = lib.parse(text, root, { keepCase: false });
  const topLevel = messagesOf(fileNamespace(root, own.package), lib);
  const imports = [...(own.imports ?? []), ...(own.weakImports ?? [])];
  for (const reference of references.values()) {
    const parsed = lib.parse(reference, root, { keepCase: false });
    imports.push(...(parsed.imports ?? []), ...(parsed.weakImports ?? []));
  }
  const loaded = new Set<string>();
  const missing = new Set<string>();
  for (const path of imports)
    if (!references.has(path) && !addWellKnown(root, path, loaded, lib)) missing.add(path);
  try {
    root.resolveAll();
  } catch (err) {
    const unresolved = missing.size
      ? ` (imports without a reference or a well-known definition: ${[...missing].join(', ')})`
      : '';
    throw new Error(`${(err as Error).message}${unresolved}`, { cause: err });
  }
  const toJson = protoJsonMapper(lib, root);
  const readers = { indexes: byMessageIndexes(topLevel, lib), typeRef: byTypeRef(topLevel, lib) };
  return {
    decode(payload, framing) {
      const order =
        framing === 'wire-format'
          ? [readers.indexes, readers.typeRef]
          : [readers.typeRef, readers.indexes];
      const failures: string[] = [];
      for (const read of order) {
        const found = read(payload);
        if (typeof found === 'string') {
          failures.push(found);
          continue;
        }
        try {
          return toJson(found.type, found.type.decode(payload.subarray(found.offset)));
        } catch (err) {
          failures.push(`as ${found.type.name}: ${(err as Error).message}`);
        }
      }
      throw new Error(`no message of the schema decodes: ${failures.join('; ')}`);
    },
  };
}

/** The message a payload's prefix names and where its bytes start, or why it names none. */
type MessageReader = (payload: Uint8Array) => { type: Type; offset: number } | string;

function readerOf(lib: Protobufjs, payload: Uint8Array): Reader {
  return lib.Reader.create(payload);
}

/** Confluent's message indexes: a zigzag count (0 meaning [0]), then each zigzag index. */
function byMessageIndexes(topLevel: readonly Type[], lib: Protobufjs): MessageReader {
  return (payload) => {
    const reader = readerOf(lib, payload);
    const path: number[] = [];
    try {
      const count = reader.sint32();
      if (count < 0 || count > MAX_INDEX_DEPTH) return `message index count ${count} is not one`;
      for (let i = 0; i < count; i++) path.push(reader.sint32());
    } catch {
      return 'message indexes are truncated';
    }
    if (path.length === 0) path.push(0);
    let candidates: readonly Type[] = topLevel;
    let type: Type | undefined;
    for (const index of path) {
      type = candidates[index];
      if (!type) return `message indexes [${path.join(', ')}] name no message of the schema`;
      candidates = messagesOf(type, lib);
    }
    return { type: type!, offset: reader.pos };
  };
}

/** Apicurio's type reference: a length-delimited `Ref { string name = 1; }`. */
function byTypeRef(topLevel: readonly Type[], lib: Protobufjs): MessageReader {
  return (payload) => {
    const reader = readerOf(lib, payload);
    let name: string;
    try {
      const length = reader.uint32();
      const end = reader.pos + length;
      if (end > payload.length || reader.uint32() !== 0x0a) return 'no type reference';
      name = reader.string();
      if (reader.pos !== end) return 'no type reference';
    } catch {
      return 'no type reference';
    }
    const type = topLevel.find((t) => t.name === name);
    return type
      ? { type, offset: reader.pos }
      : `type reference ${JSON.stringify(name)} names no message of the schema`;
  };
}
