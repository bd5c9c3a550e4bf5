import type { IHeaders } from 'kafkajs';
import { headerBoundProblem, headerValues, sanitizeHeaders } from './headers';
import { decodeUtf8, isJsonContentType, parseJsonValue } from './json-value';
import { poison, PoisonError, type Poison } from './poison';

export { POISON_REASONS, type Poison, type PoisonReason } from './poison';
export { MAX_JSON_DEPTH } from './json-value';

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

/** Longest accepted event ID, aggregate ID or event type: they end up in workflow IDs. */
export const MAX_ID_LENGTH = 200;

// Control characters in an ID would make workflow IDs and log lines unreadable or ambiguous:
// C0, DEL and C1 (U+0080–U+009F: U+009B is a one-character CSI, which many terminals read
// as ESC [), as the data schema's IDs already refuse them.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
const EVENT_TYPE = /^[A-Za-z][A-Za-z0-9._-]*$/;
const POSITIVE_INT = /^[1-9][0-9]*$/;

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

/** True when a string has no lone surrogate (String.prototype.isWellFormed, Node ≥ 20). */
export function isWellFormed(value: string): boolean {
  return (value as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Checks an ID-like field (event ID, aggregate ID) and returns it unchanged. */
function checkId(value: string, field: string): string {
  if (value.trim() === '') throw new PoisonError('missing-identity', `${field}: must not be empty`);
  // A lone surrogate has no UTF-8 form: encoders replace it with U+FFFD, so `\ud800`,
  // `\udc00` and `\ufffd` would all name one workflow.
  if (!isWellFormed(value))
    throw new PoisonError(
      'validation-failed',
      `${field}: must be well-formed Unicode (it holds a lone surrogate)`,
    );
  if (value.length > MAX_ID_LENGTH)
    throw new PoisonError(
      'validation-failed',
      `${field}: must be at most ${MAX_ID_LENGTH} characters`,
    );
  if (CONTROL_CHARS.test(value))
    throw new PoisonError('validation-failed', `${field}: must not contain control characters`);
  if (value !== value.trim())
    throw new PoisonError(
      'validation-failed',
      `${field}: must not have leading or trailing whitespace`,
    );
  return value;
}

function checkEventType(value: string): string {
  checkId(value, 'eventType');
  if (!EVENT_TYPE.test(value))
    throw new PoisonError(
      'validation-failed',
      'eventType: must start with a letter and use only letters, digits, . _ -',
    );
  return value;
}

/** Parses an aggregate version from a header (text) or a body field (JSON number). */
export function parseAggregateVersion(raw: unknown, field: string): number {
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw : undefined;
  // A header is text by nature; a body field must be a JSON number, not a quoted one.
  const fromBody = field === 'aggregateVersion';
  if (
    text === undefined ||
    (fromBody && typeof raw !== 'number') ||
    !POSITIVE_INT.test(text) ||
    !Number.isSafeInteger(Number(text))
  ) {
    throw new PoisonError(
      'validation-failed',
      `${field}: must be a positive integer, got ${JSON.stringify(raw)}`,
    );
  }
  return Number(text);
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

function required(value: string | undefined, headerName: string, bodyName: string): string {
  if (value === undefined)
    throw new PoisonError(
      'missing-identity',
      `${bodyName}: missing (neither header ${headerName} nor body field ${bodyName} is set)`,
    );
  return value;
}

function doParse(message: RawMessage, options: ParseEnvelopeOptions): Envelope {
  const { value, headers } = message;
  if (value === null || value.length === 0)
    throw new PoisonError('unparseable', 'value is empty (a tombstone or an empty message)');
  // Checked before decoding so a huge value costs no parsing.
  if (value.length > options.maxBytes)
    throw new PoisonError(
      'oversized',
      `value is ${value.length} bytes, more than the limit of ${options.maxBytes}`,
    );
  // Counted over every header, dropped ones included: a flood of headers is the message's
  // fault however they decode.
  const headerProblem = headerBoundProblem(sanitizeHeaders(headers));
  if (headerProblem !== undefined) throw new PoisonError('oversized', headerProblem);

  const contentType = readHeader(headers, HEADER.contentType);
  if (contentType !== undefined && !isJsonContentType(contentType))
    throw new PoisonError(
      'unparseable',
      `content-type ${JSON.stringify(contentType)} is not application/json`,
    );

  const parsed = parseJsonValue(value);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new PoisonError(
      'unparseable',
      `value must be a JSON object, got ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed}`,
    );
  const object = parsed as Record<string, unknown>;
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

  checkId(eventId, 'eventId');
  checkEventType(eventType);
  checkId(aggregateId, 'aggregateId');

  if (message.key !== null && (options.keyMismatch ?? 'reject') === 'reject') {
    const key = decodeUtf8(message.key, 'key');
    if (key !== aggregateId)
      throw new PoisonError(
        'key-mismatch',
        `message key ${JSON.stringify(key)} is not the aggregate ID ${JSON.stringify(aggregateId)}`,
      );
  }

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
 * Reads the envelope of one Kafka message (docs/architecture.md, "Event contract"): headers first,
 * top-level JSON body fields as fallback. Never throws: every defect is returned as poison
 * with its reason, so a bad message can never crash the bridge.
 */
export function parseEnvelope(
  message: RawMessage,
  options: ParseEnvelopeOptions,
): ParseEnvelopeResult {
  try {
    return { ok: true, envelope: doParse(message, options) };
  } catch (err) {
    if (err instanceof PoisonError) return poison(err.reason, err.message);
    // A bug here must still not stop the partition; the message goes to the DLQ with the cause.
    return poison('unparseable', `envelope parsing failed: ${(err as Error)?.message ?? err}`);
  }
}
