import { readHeader, type Envelope, type RawMessage } from './envelope';
import { checkId, parseAggregateVersion } from './event-fields';
import { decodeUtf8, isJsonContentType, parseJsonValue } from './json-value';
import { asJsonObject, readMessageValue, type DecodedValue } from './message-value';
import { PoisonError } from './poison';

/**
 * CloudEvents 1.0 in its Kafka protocol binding (docs/bridge.md, "CloudEvents"): binary mode,
 * the attributes in `ce_*` headers and the data as the value (`content-type` is its
 * datacontenttype), and structured mode, the whole event as `application/cloudevents+json`.
 * The content type tells the two apart, as the binding says.
 */

/** Options of the CloudEvents framing. */
export interface CloudEventsOptions {
  kind: 'cloudevents';
  /**
   * An extension attribute that carries the aggregate version (a positive integer), read from
   * the `ce_<name>` header or the structured event's `<name>`. Default: none (the identity is
   * then the event ID, `id`).
   * @example version: 'sequence'
   */
  version?: string;
}

const SPEC_VERSION = '1.0';
const STRUCTURED = /^application\/cloudevents(\+[a-z0-9.-]+)?\s*(;|$)/i;
const HEADER_PREFIX = 'ce_';

/** The attributes the bridge reads, whichever mode carried them. */
interface Attributes {
  get(name: string): string | undefined;
  /** Where an attribute is, for messages: `header ce_id` or `field id`. */
  where(name: string): string;
}

function binaryAttributes(message: RawMessage): Attributes {
  return {
    get: (name) => readHeader(message.headers, `${HEADER_PREFIX}${name}`),
    where: (name) => `header ${HEADER_PREFIX}${name}`,
  };
}

function structuredAttributes(event: Record<string, unknown>): Attributes {
  return {
    get: (name) => {
      const value = event[name];
      if (value === undefined || value === null) return undefined;
      // Numbers are allowed for an integer extension (a version); other attributes are strings.
      if (typeof value === 'number') return String(value);
      if (typeof value !== 'string')
        throw new PoisonError('validation-failed', `${name}: must be a string`);
      return value;
    },
    where: (name) => `field ${name}`,
  };
}

/** The structured event's data: `data` as it is, or `data_base64` when it holds JSON. */
function structuredData(event: Record<string, unknown>): unknown {
  if (Object.hasOwn(event, 'data')) return event.data;
  const base64 = event.data_base64;
  if (typeof base64 !== 'string') return undefined;
  const contentType = typeof event.datacontenttype === 'string' ? event.datacontenttype : undefined;
  if (contentType !== undefined && !isJsonContentType(contentType))
    throw new PoisonError(
      'unparseable',
      `data_base64 holds ${JSON.stringify(contentType)}, not JSON: the bridge reads JSON data`,
    );
  return parseJsonValue(Buffer.from(base64, 'base64'));
}

/** The envelope of one CloudEvent, binary or structured; poison for what is not one. */
export function frameCloudEvent(
  message: RawMessage,
  options: CloudEventsOptions,
  decoded?: DecodedValue,
): Envelope {
  const contentType = readHeader(message.headers, 'content-type');
  const structured = contentType !== undefined && STRUCTURED.test(contentType);
  let attributes: Attributes;
  let data: unknown;
  if (structured) {
    const event = asJsonObject(readMessageValue(message.value!, decoded, undefined));
    attributes = structuredAttributes(event);
    data = structuredData(event);
  } else {
    attributes = binaryAttributes(message);
    data = readMessageValue(message.value!, decoded, contentType);
  }
  const present = (value: string | undefined, name: string, where: string): string => {
    if (value === undefined)
      throw new PoisonError('missing-identity', `CloudEvents ${name}: missing (${where})`);
    return value;
  };
  const attribute = (name: string) => present(attributes.get(name), name, attributes.where(name));
  const specVersion = attribute('specversion');
  if (specVersion !== SPEC_VERSION)
    throw new PoisonError(
      'validation-failed',
      `specversion: must be ${SPEC_VERSION}, got ${JSON.stringify(specVersion)}`,
    );
  // CloudEvents makes only source + id unique (per-source sequences are common): the identity
  // by event ID holds both (identity.ts, eventIdentity).
  const source = checkId(attribute('source'), 'source');
  // The aggregate is the event's subject; without one, the message key (the binding's
  // partitionkey), so per-aggregate order and stale versions still hold.
  const subject = attributes.get('subject');
  const key = message.key === null ? undefined : decodeUtf8(message.key, 'key');
  const aggregateId = present(
    subject ?? key,
    'subject',
    `${attributes.where('subject')}, and no message key`,
  );
  const versionText = options.version === undefined ? undefined : attributes.get(options.version);
  return {
    eventId: attribute('id'),
    eventType: attribute('type'),
    aggregateId,
    ...(versionText !== undefined
      ? { aggregateVersion: parseAggregateVersion(versionText, attributes.where(options.version!)) }
      : {}),
    data,
    ...(contentType !== undefined ? { contentType } : {}),
    source,
  };
}
