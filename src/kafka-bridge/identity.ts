import { createHash } from 'node:crypto';

/**
 * How a route derives an event's identity (ARCHITECTURE.md, "Identity and deduplication"):
 * - `aggregate-version`: `aggregateId@aggregateVersion` when a version is present (collides
 *   even when a producer re-emits one change under a fresh event ID), else the event ID;
 * - `event-id`: always the event ID.
 * Never broker coordinates: a redelivery lands on another offset.
 */
export type IdentityStrategy = 'aggregate-version' | 'event-id';

export const IDENTITY_STRATEGIES: readonly IdentityStrategy[] = ['aggregate-version', 'event-id'];

export interface IdentityInput {
  eventId: string;
  aggregateId: string;
  aggregateVersion?: number;
}

/** The dedup identity of one event under a route's strategy. */
export function deriveIdentity(event: IdentityInput, strategy: IdentityStrategy): string {
  if (strategy === 'aggregate-version' && event.aggregateVersion !== undefined) {
    return `${event.aggregateId}@${event.aggregateVersion}`;
  }
  return event.eventId;
}

/**
 * Characters kept as they are in a workflow ID; everything else (including `%`) is
 * percent-encoded, which keeps the mapping injective and the common IDs (UUIDs, `order-123`)
 * readable in the Temporal Web UI.
 */
const SAFE_CHAR = /[A-Za-z0-9._~:@+=,-]/;

/** Longer workflow IDs are shortened with a hash; Temporal's default limit is 1000 bytes. */
export const MAX_WORKFLOW_ID_LENGTH = 400;

function encodeIdPart(part: string): string {
  let out = '';
  for (const ch of part) {
    out += SAFE_CHAR.test(ch)
      ? ch
      : Array.from(
          Buffer.from(ch, 'utf8'),
          (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
        ).join('');
  }
  return out;
}

/**
 * The workflow ID of an event: `<prefix>:<identity>`, e.g. `OrderPlaced:order-123@1`. A pure
 * function of its inputs, so every redelivery and every bridge instance derives the same ID
 * and Temporal's REJECT_DUPLICATE does the deduplication. An ID that would exceed
 * MAX_WORKFLOW_ID_LENGTH keeps a readable head and ends with a sha256 of the full ID.
 */
export function deriveWorkflowId(prefix: string, identity: string): string {
  const full = `${encodeIdPart(prefix)}:${encodeIdPart(identity)}`;
  if (full.length <= MAX_WORKFLOW_ID_LENGTH) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 32);
  return `${full.slice(0, MAX_WORKFLOW_ID_LENGTH - hash.length - 1)}~${hash}`;
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
