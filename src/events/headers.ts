import type { IHeaders } from 'kafkajs';

/**
 * Defensive reading of Kafka headers. Producers other than ours can send header values that
 * are null (legal in Kafka), and a decoder that fills a plain object can surface inherited
 * names (`constructor`, `toString`, `__proto__`) as if they were headers. Only OWN properties
 * whose values are strings or Buffers (or arrays of those) count as headers; everything else
 * is dropped and named, so the envelope never reads it and the DLQ copy never carries it.
 */

/** One header value as the bridge accepts it. */
export type HeaderValue = string | Buffer;

/** Headers after sanitising: a prototype-less object of own, well-typed values only. */
export type SafeHeaders = Record<string, HeaderValue | HeaderValue[]>;

/** Most headers one message may carry (a repeated header counts once per value). */
export const MAX_HEADER_COUNT = 100;

/** Most bytes of header names and values one message may carry. */
export const MAX_HEADER_BYTES = 64 * 1024;

export interface SanitizedHeaders {
  /** Accepted headers, in the order the message carried them; no prototype. */
  headers: SafeHeaders;
  /** Names of headers dropped because their value is not a string or Buffer (e.g. null). */
  dropped: string[];
  /**
   * Header values sent: each value of a repeated header (null ones too) and each dropped
   * header counted.
   */
  count: number;
  /** UTF-8 bytes of header names and values seen, each value counted with its name. */
  bytes: number;
}

function isHeaderValue(v: unknown): v is HeaderValue {
  return typeof v === 'string' || Buffer.isBuffer(v);
}

function byteLength(v: HeaderValue): number {
  return typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : v.length;
}

/**
 * The usable value of one own header property, or undefined. Accessor properties are never
 * invoked (a getter could throw or be slow); arrays keep only their usable elements.
 */
function usableValue(headers: object, name: string): HeaderValue | HeaderValue[] | undefined {
  const descriptor = Object.getOwnPropertyDescriptor(headers, name);
  if (descriptor === undefined || !('value' in descriptor)) return undefined;
  const raw: unknown = descriptor.value;
  if (isHeaderValue(raw)) return raw;
  if (!Array.isArray(raw)) return undefined;
  const values = raw.filter(isHeaderValue);
  return values.length > 0 ? values : undefined;
}

/** How many values the producer sent under one name: an array's length, else 1. */
function rawValueCount(headers: object, name: string): number {
  const descriptor = Object.getOwnPropertyDescriptor(headers, name);
  const raw: unknown = descriptor && 'value' in descriptor ? descriptor.value : undefined;
  return Array.isArray(raw) ? Math.max(1, raw.length) : 1;
}

/**
 * Own, well-typed headers of a message plus the names of those dropped. Linear in the number
 * of headers; never throws, whatever `headers` is.
 */
export function sanitizeHeaders(headers: IHeaders | undefined | null): SanitizedHeaders {
  const out: SafeHeaders = Object.create(null) as SafeHeaders;
  const dropped: string[] = [];
  let count = 0;
  let bytes = 0;
  if (typeof headers !== 'object' || headers === null)
    return { headers: out, dropped, count, bytes };
  for (const name of Object.keys(headers)) {
    const value = usableValue(headers, name);
    const nameBytes = Buffer.byteLength(name, 'utf8');
    // The bound counts what the producer sent, not what survives: every value of a repeated
    // header counts, null ones included (Kafka allows them), so 10,000 null repeats of one
    // name cannot pass as one header.
    const sent = rawValueCount(headers, name);
    count += sent;
    bytes += nameBytes * sent;
    if (value === undefined) {
      dropped.push(name);
      continue;
    }
    out[name] = value;
    for (const v of Array.isArray(value) ? value : [value]) bytes += byteLength(v);
  }
  return { headers: out, dropped, count, bytes };
}

/**
 * The values of one header, or an empty list when it is absent, inherited, null or not a
 * string/Buffer. The only way translation code reads a header.
 */
export function headerValues(headers: IHeaders | undefined | null, name: string): HeaderValue[] {
  if (typeof headers !== 'object' || headers === null || !Object.hasOwn(headers, name)) return [];
  const value = usableValue(headers, name);
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** The first value of one header as (lenient UTF-8) text, or undefined; for bookkeeping headers. */
export function firstHeaderText(
  headers: IHeaders | undefined | null,
  name: string,
): string | undefined {
  const v = headerValues(headers, name)[0];
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : v.toString('utf8');
}

/** A header bound broken by a message: what to say in its `oversized` verdict, or undefined. */
export function headerBoundProblem(
  sanitized: Pick<SanitizedHeaders, 'count' | 'bytes'>,
): string | undefined {
  if (sanitized.count > MAX_HEADER_COUNT)
    return `headers: ${sanitized.count} headers, more than the limit of ${MAX_HEADER_COUNT}`;
  if (sanitized.bytes > MAX_HEADER_BYTES)
    return `headers: ${sanitized.bytes} bytes, more than the limit of ${MAX_HEADER_BYTES}`;
  return undefined;
}
