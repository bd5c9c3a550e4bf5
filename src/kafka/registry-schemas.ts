import type { Client, SchemaInfo } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import type { AvroDeserializer } from '@confluentinc/schemaregistry/dist/serde/avro';
import type { JsonDeserializer } from '@confluentinc/schemaregistry/dist/serde/json';
import type { SchemaFormat } from '../events/message-value';
import { parseJsonValue } from '../events/json-value';
import { bigintLongOptions, decodeAvro } from './registry-avro';
import type { RegistryLibrary } from './registry-client';
import { toJsonValue } from './registry-json';
import { parseProtoSchema, type ProtoFraming } from './registry-protobuf';

/**
 * A registry schema made ready to decode values: compiled once per schema ID, so what is the
 * schema's (it does not compile, it needs something this decoder cannot do) is told apart
 * from what is a value's (its bytes do not decode with it).
 */
export interface CompiledSchema {
  format: SchemaFormat;
  /** The value `payload` (after the schema ID) holds, as JSON; throws when it holds none. */
  decode(payload: Buffer, framing: ProtoFraming): unknown;
}

/**
 * Most files one Protobuf schema may import through references, transitively. Far above real
 * schemas (a few), it stops a reference cycle or a runaway chain in the registry from being
 * fetched for ever.
 */
export const MAX_PROTO_REFERENCES = 256;

/** How many schemas each compiling deserializer keeps (the library's own LRU by count). */
export interface SchemaCompilerOptions {
  cacheCapacity: number;
}

/** The format a registry names for a schema (AVRO when it names none). */
export function formatOf(info: SchemaInfo): SchemaFormat {
  const type = (info.schemaType ?? 'AVRO').toUpperCase();
  return type === 'PROTOBUF' || type === 'JSON' ? type : 'AVRO';
}

/** The names of a schema's data-contract rules (Confluent's rule sets), which nothing here runs. */
function ruleNamesOf(info: SchemaInfo): string[] {
  const rules = info.ruleSet;
  if (!rules) return [];
  return [
    ...(rules.migrationRules ?? []),
    ...(rules.domainRules ?? []),
    ...(rules.encodingRules ?? []),
  ].map((rule) => rule.name);
}

/**
 * The files a Protobuf schema's references provide (import path → .proto text), with their own
 * references, transitively. A failed request throws as the client threw it (the environment's).
 */
async function protoReferencesOf(client: Client, info: SchemaInfo): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const queue = [...(info.references ?? [])];
  for (let ref = queue.shift(); ref; ref = queue.shift()) {
    if (files.has(ref.name)) continue;
    if (files.size >= MAX_PROTO_REFERENCES)
      throw new Error(`it references more than ${MAX_PROTO_REFERENCES} files`);
    const referenced = await client.getSchemaMetadata(ref.subject, ref.version, true);
    files.set(ref.name, referenced.schema);
    queue.push(...(referenced.references ?? []));
  }
  return files;
}

/**
 * Compiles registry schemas with the library's Avro and JSON Schema compilers (which resolve
 * their references through `client`) and protobufjs.
 */
export function createSchemaCompiler(
  lib: RegistryLibrary,
  client: Client,
  options: SchemaCompilerOptions,
): (info: SchemaInfo) => Promise<CompiledSchema> {
  const cache = { cacheCapacity: options.cacheCapacity };
  const avro: AvroDeserializer = new lib.AvroDeserializer(client, lib.SerdeType.VALUE, {
    ...cache,
    ...bigintLongOptions(),
  } as never);
  const json: JsonDeserializer = new lib.JsonDeserializer(client, lib.SerdeType.VALUE, {
    ...cache,
    validate: true,
  } as never);

  return async (info) => {
    const format = formatOf(info);
    const rules = ruleNamesOf(info);
    if (rules.length > 0)
      throw new Error(`it has data-contract rules the bridge does not run: ${rules.join(', ')}`);
    if (format === 'PROTOBUF') {
      const schema = parseProtoSchema(info.schema, await protoReferencesOf(client, info));
      return { format, decode: (payload, framing) => schema.decode(payload, framing) };
    }
    if (format === 'JSON') {
      const validate = await json.toValidateFunction(info);
      return {
        format,
        decode(payload) {
          const value = parseJsonValue(payload);
          if (validate && !validate(value))
            throw new Error(`it breaks its schema: ${JSON.stringify(validate.errors ?? [])}`);
          return toJsonValue(value);
        },
      };
    }
    const [type] = await avro.toType(info);
    return {
      format,
      // A schema of plain `bytes` takes the payload as it is (Confluent's serializers write it
      // so, without Avro's length prefix).
      decode: (payload) =>
        toJsonValue(type.typeName === 'bytes' ? payload : decodeAvro(type, payload)),
    };
  };
}
