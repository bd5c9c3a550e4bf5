import { PoisonError } from './poison';

/**
 * The rules of an event's identity fields, whatever framing carried them: event and aggregate
 * IDs, the event type, the aggregate version (docs/architecture.md, "Event contract").
 */

/** Longest accepted event ID, aggregate ID or event type: they end up in workflow IDs. */
export const MAX_ID_LENGTH = 200;

// Control characters in an ID would make workflow IDs and log lines unreadable or ambiguous:
// C0, DEL and C1 (U+0080–U+009F: U+009B is a one-character CSI, which many terminals read
// as ESC [), as the data schema's IDs already refuse them.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
// An event type names a route, so it is a name: a letter first, then what a URI may hold
// (RFC 3986's unreserved and reserved characters and `%`), so CloudEvents types as the spec
// allows them pass: `OrderPlaced`, reverse-DNS `com.example.order.placed`, a URN
// `urn:example:order:placed`, a URL `https://example.com/events/order-placed`. No space,
// quote, backslash or angle bracket: where an event type goes (workflow IDs, search
// attributes, headers, log lines) it is escaped, but it never needs to be.
const EVENT_TYPE = /^[A-Za-z][A-Za-z0-9._~:/?#[\]@!$&'()*+,;=%-]*$/;
const POSITIVE_INT = /^[1-9][0-9]*$/;

/** True when a string has no lone surrogate (String.prototype.isWellFormed, Node ≥ 20). */
export function isWellFormed(value: string): boolean {
  return (value as string & { isWellFormed(): boolean }).isWellFormed();
}

/** Checks an ID-like field (event ID, aggregate ID) and returns it unchanged. */
export function checkId(value: string, field: string): string {
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

export function checkEventType(value: string): string {
  checkId(value, 'eventType');
  if (!EVENT_TYPE.test(value))
    throw new PoisonError(
      'validation-failed',
      "eventType: must start with a letter and use only letters, digits and a URI's . _ ~ - : / ? # [ ] @ ! $ & ' ( ) * + , ; = %",
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
