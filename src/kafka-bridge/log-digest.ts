import { createHash } from 'node:crypto';

/** What a log line may say about a message body or header value: its size and a short hash. */
export interface LogDigest {
  bytes: number;
  sha256: string;
}

/**
 * Size and hash (first 16 hex digits of SHA-256) of a value, never the value: message bodies
 * and header values carry personal data, and error texts (the V8 JSON parse error, a bad
 * header's complaint) quote them. The DLQ keeps the full text; logs keep this.
 */
export function digestOf(value: string | Buffer | null | undefined): LogDigest | undefined {
  if (value === null || value === undefined) return undefined;
  const buf = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  return { bytes: buf.length, sha256: createHash('sha256').update(buf).digest('hex').slice(0, 16) };
}
