import { isJsonContentType, parseJsonValue } from './json-value';
import { PoisonError } from './poison';

/**
 * A message value as a framing reads it: JSON text, or an object a Schema Registry decoded from
 * the Confluent wire format (src/kafka/registry-decoder.ts does that before translation, since
 * it needs I/O; translation itself stays pure).
 */

/** The first byte of a value in the Confluent wire format: 0, then a 4-byte schema ID. */
export const WIRE_FORMAT_MAGIC = 0;

/** Bytes before the payload in the wire format: the magic byte and the schema ID. */
export const WIRE_FORMAT_HEADER_BYTES = 5;

/** The setting that names the registry (read by the config module). */
export const SCHEMA_REGISTRY_SETTING = 'SCHEMA_REGISTRY_URL';

/** Formats a registry names (its `schemaType`; AVRO when it names none). */
export type SchemaFormat = 'AVRO' | 'PROTOBUF' | 'JSON';

/** A value the registry decoded: the object a route validates and fingerprints. */
export interface DecodedValue {
  /** JSON-compatible (src/kafka/registry-json.ts turns bytes, longs and messages into JSON). */
  value: unknown;
  schemaId: number;
  format: SchemaFormat;
}

/**
 * The schema ID of a value in the Confluent wire format, or undefined when it is not one. JSON
 * text never starts with a zero byte, so a JSON producer and a registry producer can share a
 * topic without either being mistaken for the other.
 */
export function wireFormatSchemaId(value: Buffer | null): number | undefined {
  if (value === null || value.length < WIRE_FORMAT_HEADER_BYTES) return undefined;
  if (value[0] !== WIRE_FORMAT_MAGIC) return undefined;
  return value.readUInt32BE(1);
}

/**
 * A value of a topic whose routes read the registry's wire format, in that format but not
 * decoded (the decoder runs before translation when the bridge has a registry): the bridge has
 * none, poison `unparseable` naming the setting. Nothing for any other value.
 */
export function rejectUndecodedWireFormat(value: Buffer | null): void {
  const schemaId = wireFormatSchemaId(value);
  if (schemaId !== undefined)
    throw new PoisonError(
      'unparseable',
      `value is in the Schema Registry wire format (schema ID ${schemaId}) but the bridge has no registry: set ${SCHEMA_REGISTRY_SETTING}`,
    );
}

/**
 * The value a framing reads: the registry's decoded object when there is one, else the value's
 * JSON (`contentType`, when the framing has one, must be JSON). A value in the wire format
 * that was not decoded never gets here unless its routes say it is not in that format
 * (`registry: false`): its zero byte is then just a byte, and it is not JSON.
 */
export function readMessageValue(
  value: Buffer,
  decoded: DecodedValue | undefined,
  contentType: string | undefined,
): unknown {
  if (decoded !== undefined) return decoded.value;
  if (contentType !== undefined && !isJsonContentType(contentType))
    throw new PoisonError(
      'unparseable',
      `content-type ${JSON.stringify(contentType)} is not application/json`,
    );
  return parseJsonValue(value);
}

/** `value` as a JSON object, or poison `unparseable` saying what it is instead. */
export function asJsonObject(value: unknown, what = 'value'): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || isBytes(value))
    throw new PoisonError(
      'unparseable',
      `${what} must be a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
    );
  return value as Record<string, unknown>;
}

function isBytes(value: object): boolean {
  return value instanceof Uint8Array;
}
