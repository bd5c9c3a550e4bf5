import { readHeader, type Envelope, type RawMessage } from './envelope';
import { parseAggregateVersion } from './event-fields';
import { decodeUtf8, parseJsonValue } from './json-value';
import { asJsonObject, readMessageValue, type DecodedValue } from './message-value';
import { PoisonError } from './poison';

/**
 * Records of Debezium's outbox event router (io.debezium.transforms.outbox.EventRouter), the
 * usual relay of a transactional outbox (docs/bridge.md, "Debezium outbox"): the event ID in a
 * header (`id`), the aggregate ID as the key, the payload as the value, and the event type where
 * `table.fields.additional.placement` put it: a header (`type:header:eventType`) or a field of
 * the value (`type:envelope:eventType`, which wraps the payload as `{ payload, eventType }`).
 * Key and value are read as Kafka Connect's converters write them: StringConverter,
 * JsonConverter with or without schemas (its `{schema, payload}` envelope), or a registry
 * converter (the wire format, decoded before translation).
 */

/** Options of the Debezium outbox framing; each default is Debezium's. */
export interface DebeziumOutboxOptions {
  kind: 'debezium-outbox';
  /**
   * Header with the event ID (the outbox's `id` column, `table.field.event.id`). Default: `id`.
   * @example idHeader: 'eventId'
   */
  idHeader?: string;
  /**
   * Where the event type is: `{ header: name }` for `type:header:<name>` placement, `{ field:
   * name }` for `type:envelope:<name>`. Default: `{ header: 'eventType' }`.
   * @example eventType: { field: 'eventType' }
   */
  eventType?: { header: string } | { field: string };
  /**
   * Header with the aggregate version, when the outbox has such a column and places it as a
   * header (`version:header:<name>`). Default: none (the identity is then the event ID).
   * @example versionHeader: 'aggregateVersion'
   */
  versionHeader?: string;
}

/** The field an envelope placement wraps the payload in. */
const PAYLOAD_FIELD = 'payload';

/** The schema types of Kafka Connect (org.apache.kafka.connect.data.Schema.Type), lower case. */
const CONNECT_TYPES: ReadonlySet<unknown> = new Set([
  'int8',
  'int16',
  'int32',
  'int64',
  'float32',
  'float64',
  'boolean',
  'string',
  'bytes',
  'array',
  'map',
  'struct',
]);

/**
 * What Kafka Connect's JsonConverter wrote, without its envelope: with `schemas.enable=true`
 * (Connect's default) a key or value is `{"schema": {...}, "payload": ...}`, the schema a
 * Connect schema (a `type` of CONNECT_TYPES) or null; anything else is returned as it is
 * (`schemas.enable=false`, or another converter). An outbox payload that is itself an object
 * of exactly `schema` and `payload` with a Connect type would be taken for the envelope.
 */
export function withoutConnectEnvelope(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length !== 2 || !Object.hasOwn(value, 'schema') || !Object.hasOwn(value, PAYLOAD_FIELD))
    return value;
  const schema = (value as { schema: unknown }).schema;
  const isSchema =
    schema === null ||
    (typeof schema === 'object' && CONNECT_TYPES.has((schema as { type?: unknown }).type));
  return isSchema ? (value as Record<string, unknown>)[PAYLOAD_FIELD] : value;
}

/**
 * The aggregate ID in a record key as Kafka Connect's key converters write it: StringConverter's
 * text as it is; JsonConverter's JSON string (`"order-1"`, `schemas.enable=false`) or envelope
 * (`{"schema":{"type":"string"},"payload":"order-1"}`), a whole number as its digits. (A
 * registry converter's key is decoded through the registry before it gets here.)
 */
export function readConnectKey(key: Buffer): string {
  const text = decodeUtf8(key, 'key');
  if (!text.startsWith('"') && !text.startsWith('{')) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const payload = withoutConnectEnvelope(parsed);
  if (typeof payload === 'string') return payload;
  if (typeof payload === 'number' && Number.isSafeInteger(payload)) return String(payload);
  // A JSON object that is no envelope: StringConverter's text of it.
  if (payload === parsed) return text;
  throw new PoisonError(
    'validation-failed',
    `key: the Kafka Connect envelope holds a ${payload === null ? 'null' : typeof payload}, not the aggregate ID`,
  );
}

/**
 * The payload as JSON. Debezium hands a JSON (or text) payload column over as a string unless
 * `table.expand.json.payload` is on, so a string payload is parsed once more.
 */
function expandPayload(payload: unknown): unknown {
  if (typeof payload !== 'string') return payload;
  return parseJsonValue(Buffer.from(payload, 'utf8'));
}

/** The envelope of one outbox record; poison for what is not one. */
export function frameDebeziumOutbox(
  message: RawMessage,
  options: DebeziumOutboxOptions,
  decoded?: DecodedValue,
): Envelope {
  const idHeader = options.idHeader ?? 'id';
  const typeAt = options.eventType ?? { header: 'eventType' };
  // The registry's decoded value, or JSON (JsonConverter's envelope taken off).
  const value =
    decoded === undefined
      ? withoutConnectEnvelope(readMessageValue(message.value!, undefined, undefined))
      : decoded.value;
  let payload: unknown = value;
  let eventType: unknown;
  if ('field' in typeAt) {
    const envelope = asJsonObject(value);
    eventType = envelope[typeAt.field];
    payload = envelope[PAYLOAD_FIELD];
  } else {
    eventType = readHeader(message.headers, typeAt.header);
  }
  const typeWhere = 'field' in typeAt ? `field ${typeAt.field}` : `header ${typeAt.header}`;
  if (eventType === undefined || eventType === null)
    throw new PoisonError('missing-identity', `eventType: missing (${typeWhere})`);
  if (typeof eventType !== 'string')
    throw new PoisonError('validation-failed', `eventType: ${typeWhere} must be a string`);
  const eventId = readHeader(message.headers, idHeader);
  if (eventId === undefined)
    throw new PoisonError('missing-identity', `eventId: missing (header ${idHeader})`);
  if (message.key === null)
    throw new PoisonError('missing-identity', 'aggregateId: missing (the message key)');
  const version =
    options.versionHeader === undefined
      ? undefined
      : readHeader(message.headers, options.versionHeader);
  return {
    eventId,
    eventType,
    aggregateId: readConnectKey(message.key),
    ...(version !== undefined
      ? { aggregateVersion: parseAggregateVersion(version, `header ${options.versionHeader}`) }
      : {}),
    data: expandPayload(payload),
  };
}
