import type { IHeaders } from 'kafkajs';
import { headerBoundProblem, headerValues, sanitizeHeaders } from './headers';
import { decodeUtf8 } from './json-value';
import {
  asJsonObject,
  readMessageValue,
  rejectUndecodedWireFormat,
  type DecodedValue,
} from './message-value';
import { poison, PoisonError, type Poison } from './poison';
import { checkEventType, checkId, parseAggregateVersion } from './event-fields';

export { POISON_REASONS, type Poison, type PoisonReason } from './poison';
export { MAX_JSON_DEPTH } from './json-value';
export { MAX_ID_LENGTH, isWellFormed, parseAggregateVersion } from './event-fields';

/** The identity fields and payload of one event, before route lookup and data validation. */
export interface Envelope {
  eventId: string;
  eventType: string;
  aggregateId: string;
  /** Positive integer; absent when the producer does not version its aggregates. */
  aggregateVersion?: number;
  /** The raw `data` payload; validated later against the route's schema. */
  data: unknown;
  contentType?: string;
  /**
   * Who emitted the event, when the framing says (CloudEvents' `source`): an event ID is
   * unique only within its source there, so the identity by event ID holds both.
   */
  source?: string;
}

/** The parts of a Kafka message the bridge reads (a kafkajs KafkaMessage fits). */
export interface RawMessage {
  key: Buffer | null;
  value: Buffer | null;
  headers?: IHeaders;
}

export interface ParseEnvelopeOptions {
  /** Largest accepted value in bytes; larger values are poison (`oversized`). */
  maxBytes: number;
  /**
   * What to do when the message key is set and differs from the aggregate ID. Default:
   * `'reject'` (poison `key-mismatch`). A null key is always accepted: per-aggregate order is
   * then the producer's problem, and stale-version detection still guards against reordering.
   */
  keyMismatch?: 'reject' | 'ignore';
}

export type ParseEnvelopeResult = { ok: true; envelope: Envelope } | Poison;

/** Header names of the event contract. */
export const HEADER = {
  eventId: 'event-id',
  eventType: 'event-type',
  aggregateId: 'aggregate-id',
  aggregateVersion: 'aggregate-version',
  contentType: 'content-type',
} as const;

/** Top-level body fields that mark a value as an envelope (`{ eventId, …, data }`). */
const BODY_FIELDS = ['eventId', 'eventType', 'aggregateId', 'aggregateVersion', 'data'] as const;

/**
 * One header as text. kafkajs hands a repeated header over as an array; repeats that agree
 * are accepted, repeats that disagree make the envelope ambiguous. Only own properties with
 * string or Buffer values are read (src/events/headers.ts): a null value or an
 * inherited name such as `constructor` counts as absent.
 */
export function readHeader(headers: IHeaders | undefined, name: string): string | undefined {
  const values = headerValues(headers, name).map((v) =>
    typeof v === 'string' ? v : decodeUtf8(v, `header ${name}`),
  );
  if (values.length === 0) return undefined;
  if (values.some((v) => v !== values[0])) {
    throw new PoisonError(
      'header-body-mismatch',
      `header ${name} is repeated with different values: ${values.map((v) => JSON.stringify(v)).join(', ')}`,
    );
  }
  return values[0];
}

/** A body field as a string, or poison when it is present but not a string. */
function bodyString(body: Record<string, unknown> | undefined, field: string): string | undefined {
  const v = body?.[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string')
    throw new PoisonError('validation-failed', `${field}: must be a string, got ${typeof v}`);
  return v;
}

/** The header value when present, else the body value; both present and different is poison. */
function pick<T>(
  header: T | undefined,
  body: T | undefined,
  headerName: string,
  bodyName: string,
): T | undefined {
  if (header !== undefined && body !== undefined && header !== body) {
    throw new PoisonError(
      'header-body-mismatch',
      `header ${headerName} ${JSON.stringify(header)} differs from body field ${bodyName} ${JSON.stringify(body)}`,
    );
  }
  return header ?? body;
}

export function required(value: string | undefined, headerName: string, bodyName: string): string {
  if (value === undefined)
    throw new PoisonError(
      'missing-identity',
      `${bodyName}: missing (neither header ${headerName} nor body field ${bodyName} is set)`,
    );
  return value;
}

/**
 * What every framing checks before it reads a message: a value to read, within the size limit,
 * and headers within their bounds. Checked before decoding, so a huge value costs no parsing.
 */
export function checkMessageBounds(message: RawMessage, options: ParseEnvelopeOptions): Buffer {
  const { value, headers } = message;
  if (value === null || value.length === 0)
    throw new PoisonError('unparseable', 'value is empty (a tombstone or an empty message)');
  if (value.length > options.maxBytes)
    throw new PoisonError(
      'oversized',
      `value is ${value.length} bytes, more than the limit of ${options.maxBytes}`,
    );
  // Counted over every header, dropped ones included: a flood of headers is the message's
  // fault however they decode.
  const headerProblem = headerBoundProblem(sanitizeHeaders(headers));
  if (headerProblem !== undefined) throw new PoisonError('oversized', headerProblem);
  return value;
}

/**
 * The rules every event meets whatever its framing: IDs non-empty, well-formed, bounded and
 * free of control characters, a valid event type, and a message key, when set, that is the
 * aggregate ID (docs/architecture.md, "Event contract"). Returns the envelope unchanged.
 */
export function checkEnvelope(
  envelope: Envelope,
  message: RawMessage,
  options: ParseEnvelopeOptions,
  readKey: (key: Buffer) => string = (key) => decodeUtf8(key, 'key'),
): Envelope {
  checkId(envelope.eventId, 'eventId');
  checkEventType(envelope.eventType);
  checkId(envelope.aggregateId, 'aggregateId');
  if (message.key !== null && (options.keyMismatch ?? 'reject') === 'reject') {
    const key = readKey(message.key);
    if (key !== envelope.aggregateId)
      throw new PoisonError(
        'key-mismatch',
        `message key ${JSON.stringify(key)} is not the aggregate ID ${JSON.stringify(envelope.aggregateId)}`,
      );
  }
  return envelope;
}

/**
 * onceflow's own framing (docs/architecture.md, "Event contract"): the identity in headers
 * first, top-level JSON body fields as fallback, the payload under `data` (or the whole value
 * when no envelope field is in it).
 */
export function frameOnceflowEnvelope(message: RawMessage, decoded?: DecodedValue): Envelope {
  const { headers } = message;
  const contentType = readHeader(headers, HEADER.contentType);
  const object = asJsonObject(readMessageValue(message.value!, decoded, contentType));
  // Envelope form `{ eventId, …, data }` when any envelope field is at the top level; else the
  // whole value is the data (headers-only producers).
  const isEnvelope = BODY_FIELDS.some((f) => Object.hasOwn(object, f));
  const body = isEnvelope ? object : undefined;
  if (isEnvelope && !Object.hasOwn(object, 'data'))
    throw new PoisonError(
      'validation-failed',
      'data: is required when the value carries envelope fields',
    );

  // The three identity fields: header or body field, equal when both are set, one required.
  const identityField = (field: 'eventId' | 'eventType' | 'aggregateId'): string =>
    required(
      pick(readHeader(headers, HEADER[field]), bodyString(body, field), HEADER[field], field),
      HEADER[field],
      field,
    );
  const eventId = identityField('eventId');
  const eventType = identityField('eventType');
  const aggregateId = identityField('aggregateId');
  const versionHeader = readHeader(headers, HEADER.aggregateVersion);
  const versionBody = body?.aggregateVersion;
  const aggregateVersion = pick(
    versionHeader === undefined
      ? undefined
      : parseAggregateVersion(versionHeader, HEADER.aggregateVersion),
    versionBody === undefined || versionBody === null
      ? undefined
      : parseAggregateVersion(versionBody, 'aggregateVersion'),
    HEADER.aggregateVersion,
    'aggregateVersion',
  );
  return {
    eventId,
    eventType,
    aggregateId,
    ...(aggregateVersion !== undefined ? { aggregateVersion } : {}),
    data: isEnvelope ? object.data : object,
    ...(contentType !== undefined ? { contentType } : {}),
  };
}

/**
 * Reads one message with a framing's `frame`, bounds before and the common rules after; the
 * key is read with `readKey` when the framing has its own (Framing.readKey).
 */
export function parseFramed(
  message: RawMessage,
  options: ParseEnvelopeOptions,
  frame: (message: RawMessage) => Envelope,
  readKey?: (key: Buffer) => string,
): ParseEnvelopeResult {
  try {
    checkMessageBounds(message, options);
    return { ok: true, envelope: checkEnvelope(frame(message), message, options, readKey) };
  } catch (err) {
    if (err instanceof PoisonError) return poison(err.reason, err.message);
    // A bug here must still not stop the partition; the message goes to the DLQ with the cause.
    return poison('unparseable', `envelope parsing failed: ${(err as Error)?.message ?? err}`);
  }
}

/**
 * Reads the envelope of one Kafka message in onceflow's framing (docs/architecture.md, "Event
 * contract"): headers first, top-level JSON body fields as fallback; `decoded` is its value as
 * the Schema Registry decoded it, if it was in the wire format. Never throws: every defect is
 * returned as poison with its reason, so a bad message can never crash the bridge.
 */
export function parseEnvelope(
  message: RawMessage,
  options: ParseEnvelopeOptions,
  decoded?: DecodedValue,
): ParseEnvelopeResult {
  return parseFramed(message, options, (m) => {
    if (decoded === undefined) rejectUndecodedWireFormat(m.value);
    return frameOnceflowEnvelope(m, decoded);
  });
}
