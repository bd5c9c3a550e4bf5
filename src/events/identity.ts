import { createHash } from 'node:crypto';

/**
 * How a route derives an event's identity (docs/architecture.md, "Identity and deduplication"):
 * - `aggregate-version`: `v:<aggregateId>@<aggregateVersion>` when a version is present
 *   (collides even when a producer re-emits one change under a fresh event ID), else the
 *   event-ID identity;
 * - `event-id`: always the event's own identity, `e:<eventId>` (`e:<source>␟<eventId>` for
 *   an event whose framing names its source: CloudEvents).
 * Never broker coordinates: a redelivery lands on another offset.
 */
export type IdentityStrategy = 'aggregate-version' | 'event-id';

export const IDENTITY_STRATEGIES: readonly IdentityStrategy[] = ['aggregate-version', 'event-id'];

/**
 * A route's own identity rule: a function of the envelope and the validated data (e.g. an
 * invoice number that one business change carries whatever event ID the producer minted).
 * Its value becomes `c:<value>`; it must be a non-empty string, the same for every copy of
 * one change, and never broker coordinates.
 */
export type IdentityFunction<TData = never> = (event: IdentityInput, data: TData) => string;

/** The identity a route's function gave: `c:<value>`, so it never collides with `v:` or `e:`. */
export function customIdentity(value: string): string {
  return `c:${value}`;
}

/** What a route's identity function sees of the event (besides its validated data). */
export interface IdentityInput {
  eventId: string;
  aggregateId: string;
  aggregateVersion?: number;
  /** Who emitted it, when the framing says (CloudEvents' `source`); else undefined. */
  source?: string;
}

/**
 * The identity of one version of an aggregate: `v:<aggregateId>@<version>`. Injective: the
 * `v:` marks the strategy (an event ID shaped like `order-9@1` becomes `e:order-9@1`), and
 * the version, digits only, follows the LAST `@`, so an aggregate ID may itself hold `@`.
 */
export function versionIdentity(aggregateId: string, aggregateVersion: number): string {
  return `v:${aggregateId}@${aggregateVersion}`;
}

/**
 * Joins a source and an event ID in an identity: U+001F (unit separator), a control character
 * no checked ID or source may hold (event-fields.ts, checkId), so `e:<source>␟<id>` never
 * equals another event's `e:<id>` nor another source's, whatever either holds.
 */
export const SOURCE_SEPARATOR = '\u001f';

/**
 * The identity of an event by its ID: `e:<eventId>`, or `e:<source>␟<eventId>` when its
 * framing names the source the ID is unique in (CloudEvents: two services' event `1042` are
 * two events).
 */
export function eventIdentity(eventId: string, source?: string): string {
  return source === undefined ? `e:${eventId}` : `e:${source}${SOURCE_SEPARATOR}${eventId}`;
}

/** The dedup identity of one event under a route's strategy. */
export function deriveIdentity(event: IdentityInput, strategy: IdentityStrategy): string {
  if (strategy === 'aggregate-version' && event.aggregateVersion !== undefined) {
    return versionIdentity(event.aggregateId, event.aggregateVersion);
  }
  return eventIdentity(event.eventId, event.source);
}

/**
 * The identity an event with a source had before its source was part of it (`e:<eventId>`),
 * when that differs from its identity now: the ledger is asked for both, so a redelivery or a
 * replay of an event first seen by an older bridge is still a duplicate (dedup.ts). Undefined
 * for every other identity.
 */
export function formerIdentityOf(event: IdentityInput, identity: string): string | undefined {
  if (event.source === undefined) return undefined;
  return identity === eventIdentity(event.eventId, event.source)
    ? eventIdentity(event.eventId)
    : undefined;
}

/**
 * Characters kept as they are in a workflow ID; everything else (including `%` and `~`) is
 * percent-encoded, which keeps the mapping injective, leaves `~` free to mark a hashed ID,
 * and keeps common IDs (UUIDs, `order-123`) readable in the Temporal Web UI.
 */
const SAFE_CHAR = /[A-Za-z0-9._:@+=,-]/;

/**
 * The same for the prefix, without `:`: the first `:` of a workflow ID ends its prefix, so a
 * prefix holding one (the default prefix of a route whose event type is a URN or a URL,
 * `urn:example:order-placed`) is encoded (`urn%3Aexample%3Aorder-placed`). A prefix without
 * one reads as it always did.
 */
const SAFE_PREFIX_CHAR = /[A-Za-z0-9._@+=,-]/;

/**
 * Longest workflow ID derived. Self-hosted Temporal's SQL schemas declare `workflow_id
 * VARCHAR(255)` (Cloud allows 1,000 bytes; the SQLite dev server enforces nothing), and a
 * derived ID is ASCII, so 255 characters is 255 bytes.
 */
export const MAX_WORKFLOW_ID_LENGTH = 255;

/** Hex digits of the sha256 that ends a shortened workflow ID (128 bits). */
const HASH_HEX = 32;

function encodeIdPart(part: string, safe: RegExp = SAFE_CHAR): string {
  let out = '';
  for (const ch of part) {
    out += safe.test(ch)
      ? ch
      : Array.from(
          Buffer.from(ch, 'utf8'),
          (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
        ).join('');
  }
  return out;
}

/** An escaped UTF-8 continuation byte (0x80..0xBF): the middle of an encoded character. */
const CONTINUATION = /^%[89AB][0-9A-F]$/;

/** `text` cut to at most `max` characters, never inside an escape or an encoded character. */
function cutEncoded(text: string, max: number): string {
  let end = Math.min(max, text.length);
  const lastPercent = text.lastIndexOf('%', end - 1);
  if (lastPercent >= 0 && lastPercent > end - 3) end = lastPercent;
  while (end >= 3 && CONTINUATION.test(text.slice(end, end + 3))) end -= 3;
  return text.slice(0, end);
}

/**
 * The workflow ID of an event: `<prefix>:<identity>`, e.g. `OrderPlaced:v:order-123@1`. A
 * pure function of its inputs, so every redelivery and every bridge instance derives the same
 * ID and Temporal's REJECT_DUPLICATE does the deduplication. Injective: the encoded prefix
 * holds no `:` (SAFE_PREFIX_CHAR), the encoding is reversible, and `~` appears only in an ID longer than
 * MAX_WORKFLOW_ID_LENGTH, which keeps a readable head and ends with `~` and a sha256 of the
 * full ID. Throws on a lone surrogate (the envelope rejects those first): it has no UTF-8 form
 * and would encode like U+FFFD.
 */
export function deriveWorkflowId(prefix: string, identity: string): string {
  if (!(identity as string & { isWellFormed(): boolean }).isWellFormed())
    throw new RangeError('a workflow ID cannot be derived from a lone surrogate');
  const full = `${encodeIdPart(prefix, SAFE_PREFIX_CHAR)}:${encodeIdPart(identity)}`;
  if (full.length <= MAX_WORKFLOW_ID_LENGTH) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, HASH_HEX);
  return `${cutEncoded(full, MAX_WORKFLOW_ID_LENGTH - HASH_HEX - 1)}~${hash}`;
}

export class CanonicalJsonError extends Error {
  override readonly name = 'CanonicalJsonError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path || '(root)'}: ${message}`);
  }
}

/**
 * Canonical JSON: object keys sorted (by UTF-16 code units) at every level, no whitespace,
 * arrays in their order, `undefined` object members dropped as JSON.stringify does. Values
 * JSON cannot represent faithfully (NaN, Infinity, bigint, functions, symbols) throw, so two
 * different payloads can never share a fingerprint through lossy serialisation.
 */
export function canonicalJson(value: unknown): string {
  return encode(value, '');
}

function encode(value: unknown, path: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(path, `${value} is not JSON`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        return `[${value.map((v, i) => (v === undefined ? 'null' : encode(v, `${path}[${i}]`))).join(',')}]`;
      }
      if (value instanceof Date) return JSON.stringify(value.toISOString());
      const obj = value as Record<string, unknown>;
      const members = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${encode(obj[k], path ? `${path}.${k}` : k)}`);
      return `{${members.join(',')}}`;
    }
    default:
      throw new CanonicalJsonError(path, `a ${typeof value} is not JSON`);
  }
}

/** Payload fingerprint: sha256 hex of the canonical JSON of `data`. */
export function fingerprint(data: unknown): string {
  return createHash('sha256').update(canonicalJson(data), 'utf8').digest('hex');
}
