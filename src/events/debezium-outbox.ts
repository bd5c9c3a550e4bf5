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
  const value = readMessageValue(message.value!, decoded, undefined);
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
    aggregateId: decodeUtf8(message.key, 'key'),
    ...(version !== undefined
      ? { aggregateVersion: parseAggregateVersion(version, `header ${options.versionHeader}`) }
      : {}),
    data: expandPayload(payload),
  };
}
