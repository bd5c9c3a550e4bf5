import type { IHeaders } from 'kafkajs';
import { headerValues } from './headers';
import { WIRE_FORMAT_HEADER_BYTES, wireFormatSchemaId } from './message-value';
import type { PoisonReason } from './poison';

/**
 * How a value names its Schema Registry schema, if it does: the Confluent wire format (a zero
 * byte and a 4-byte schema ID before the payload), or Apicurio's serdes' headers (the default
 * of its 2.x serdes, and of 3.x with `apicurio.registry.headers.enabled=true`): the payload
 * alone as the value, the schema's ID in an 8-byte big-endian header.
 */

/**
 * The headers Apicurio's Kafka serdes write for a value (KafkaSerdeHeaders in its serde
 * source). The content ID is what the Confluent-compatible API (`/apis/ccompat/v7`) serves
 * under `/schemas/ids/{id}`, the same IDs the wire format carries from Apicurio's serdes; the
 * global ID (one per artifact version) is another numbering that API does not serve.
 */
export const APICURIO_VALUE_HEADER = {
  contentId: 'apicurio.value.contentId',
  globalId: 'apicurio.value.globalId',
  artifactId: 'apicurio.value.artifactId',
  /** Avro only: `BINARY` (the default) or `JSON` (Avro's JSON encoding). */
  encoding: 'apicurio.value.encoding',
} as const;

/** The largest schema ID the Confluent-compatible API can serve (a signed 32-bit int). */
const MAX_SCHEMA_ID = 0x7fffffff;

/** A value whose schema the registry can be asked for: its ID and where its payload starts. */
export interface SchemaReference {
  kind: 'wire-format' | 'apicurio-headers';
  schemaId: number;
  /** Bytes of the value before the payload: 5 in the wire format, 0 with headers. */
  payloadOffset: number;
  /** Apicurio's `apicurio.value.encoding` header, when it is there. */
  encoding?: string;
}

/** A value that names its schema in a way the bridge cannot look up: why, as a poison verdict. */
export interface UnreadableSchemaReference {
  kind: 'apicurio-headers';
  unreadable: {
    reason: Extract<PoisonReason, 'unparseable' | 'schema-unsupported'>;
    error: string;
  };
}

export type RegistryFraming = SchemaReference | UnreadableSchemaReference;

/** The last value of `name` as bytes (Apicurio reads the last one), or undefined. */
function lastHeaderBytes(headers: IHeaders | undefined, name: string): Buffer | undefined {
  const value = headerValues(headers, name).at(-1);
  return value === undefined ? undefined : Buffer.from(value);
}

/** An 8-byte ID header as a schema ID, or why it is not one. */
function idOf(name: string, bytes: Buffer): number | string {
  if (bytes.length !== 8) return `header ${name} holds ${bytes.length} bytes, not an 8-byte ID`;
  const id = bytes.readBigInt64BE(0);
  if (id < 1n || id > BigInt(MAX_SCHEMA_ID))
    return `header ${name} holds ${id}, not a schema ID the Confluent-compatible API can serve (1 to ${MAX_SCHEMA_ID})`;
  return Number(id);
}

/**
 * How `value` names its schema, or undefined when it names none (JSON, or any value without a
 * registry framing). Apicurio's ID headers come first, as in Apicurio's own deserializer: a
 * header-framed payload may itself start with a zero byte (Avro's null union branch, a 0).
 */
export function registryFramingOf(
  value: Buffer | null,
  headers: IHeaders | undefined,
): RegistryFraming | undefined {
  if (value === null) return undefined;
  const contentId = lastHeaderBytes(headers, APICURIO_VALUE_HEADER.contentId);
  const encodingBytes = lastHeaderBytes(headers, APICURIO_VALUE_HEADER.encoding);
  const encoding = encodingBytes?.toString('utf8');
  if (contentId !== undefined) {
    const id = idOf(APICURIO_VALUE_HEADER.contentId, contentId);
    if (typeof id === 'string')
      return { kind: 'apicurio-headers', unreadable: { reason: 'unparseable', error: id } };
    return {
      kind: 'apicurio-headers',
      schemaId: id,
      payloadOffset: 0,
      ...(encoding !== undefined ? { encoding } : {}),
    };
  }
  if (lastHeaderBytes(headers, APICURIO_VALUE_HEADER.globalId) !== undefined)
    return {
      kind: 'apicurio-headers',
      unreadable: {
        reason: 'schema-unsupported',
        error: `the value names its schema by Apicurio's global ID (header ${APICURIO_VALUE_HEADER.globalId}), which the Confluent-compatible API the bridge reads does not serve: configure the producer's serde with apicurio.registry.use-id=contentId`,
      },
    };
  if (lastHeaderBytes(headers, APICURIO_VALUE_HEADER.artifactId) !== undefined)
    return {
      kind: 'apicurio-headers',
      unreadable: {
        reason: 'schema-unsupported',
        error: `the value names its schema by Apicurio artifact coordinates (header ${APICURIO_VALUE_HEADER.artifactId}) without a content ID, which the bridge does not look up: configure the producer's serde with apicurio.registry.use-id=contentId`,
      },
    };
  const schemaId = wireFormatSchemaId(value);
  return schemaId === undefined
    ? undefined
    : { kind: 'wire-format', schemaId, payloadOffset: WIRE_FORMAT_HEADER_BYTES };
}
