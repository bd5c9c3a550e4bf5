import { z } from 'zod';
import { SCHEMA_NAME, SCHEMA_NAME_RULE } from './schema-name';
import { parseDurationMs } from '../util/duration';

/** Parsers for environment strings: every setting arrives as text and is checked here. */

export const hostPort = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9.\-_[\]:]+:\d{1,5}$/, 'must be host:port');

/** `a, b,,c` → `['a', 'b', 'c']`: comma-separated settings, blanks dropped. */
function splitList(text: string): string[] {
  return text
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

export const hostPortList = z
  .string()
  .trim()
  .transform(splitList)
  .pipe(z.array(hostPort).min(1, 'must list at least one host:port'));

export const nameList = z
  .string()
  .trim()
  .transform(splitList)
  .pipe(
    z
      .array(z.string().regex(/^[A-Za-z0-9._-]+$/, 'names may use letters, digits, . _ -'))
      .min(1, 'must name at least one'),
  );

export const bool = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no'], 'must be true or false'))
  .transform((s) => s === 'true' || s === '1' || s === 'yes');

export const positiveInt = z.coerce
  .number('must be a number')
  .int('must be a whole number')
  .min(1, 'must be at least 1');

export const nonEmpty = z.string().trim().min(1, 'must not be empty');

/** The URL, or undefined when `text` is not one (refinements run even after `url` failed). */
function parseUrl(text: string): URL | undefined {
  return URL.canParse(text) ? new URL(text) : undefined;
}

export const url = z
  .string()
  .trim()
  .refine((s) => URL.canParse(s), 'must be a URL');

/**
 * An http(s) URL with a host. `URL.canParse` alone accepts `localhost:8080` (scheme
 * `localhost:`, no host), whose origin is the string `null`: as a CORS origin that would let
 * any sandboxed iframe or `file:` page in, and as a link base it leads nowhere.
 */
export const httpUrl = z
  .string()
  .trim()
  .refine((s) => {
    const u = parseUrl(s);
    return u !== undefined && (u.protocol === 'http:' || u.protocol === 'https:') && u.host !== '';
  }, 'must be an http:// or https:// URL with a host (e.g. http://127.0.0.1:8233)');

export const postgresUrl = url.refine(
  (s) => /^postgres(ql)?:$/.test(parseUrl(s)?.protocol ?? ''),
  'must be a postgres:// URL',
);

/** A duration (`500ms`, `90s`, `10m`, `2h`, `3d`) as milliseconds, at least 1 s. */
export const duration = z
  .string()
  .trim()
  .transform((s, ctx) => {
    const ms = parseDurationMs(s);
    if (ms === undefined || ms < 1000) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a duration of at least 1s (e.g. 90s, 30m, 1h)',
      });
      return z.NEVER;
    }
    return ms;
  });

/** A port to listen on, 0 meaning "pick a free one" or "off" (the setting says which). */
export const portOrZero = z.coerce
  .number('must be a port number')
  .int('must be a port number')
  .min(0, 'must be 0..65535')
  .max(65535, 'must be 0..65535');

/** Milliseconds, 0 meaning off (Postgres's own convention for its timeouts). */
export const millisOrOff = z.coerce
  .number('must be a number of milliseconds')
  .int('must be a number of milliseconds')
  .min(0, 'must be 0 (off) or a number of milliseconds');

/** A Postgres schema name (src/config/schema-name.ts owns the rule). */
export const schemaName = z.string().trim().regex(SCHEMA_NAME, SCHEMA_NAME_RULE);

/**
 * DATABASE_SSL, in libpq's words but never weaker than libpq: `require` and `verify-full`
 * encrypt and verify the certificate chain (against DATABASE_SSL_CA_PATH or the system CAs)
 * AND the host name; `verify-ca` verifies the chain only (a server reached by an IP or an
 * alias its certificate does not name). There is no mode that encrypts without verifying:
 * that protects against nobody.
 */
export const sslMode = z.enum(
  ['disable', 'require', 'verify-ca', 'verify-full'],
  'must be disable, require, verify-ca or verify-full',
);

export const saslMechanism = z.enum(
  ['plain', 'scram-sha-256', 'scram-sha-512'],
  'must be plain, scram-sha-256 or scram-sha-512',
);

export const logLevel = z.enum(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  'must be a pino level (fatal, error, warn, info, debug, trace, silent)',
);

/** Base64 of at least 16 bytes (an HMAC key). */
export const base64Key = z
  .string()
  .trim()
  .refine((s) => Buffer.from(s, 'base64').length >= 16, 'must be base64 of at least 16 bytes');

/** An ISO 8601 time (`2026-05-01T00:00:00Z`) as milliseconds since the epoch. */
export const isoTime = z
  .string()
  .trim()
  .refine(
    (s) =>
      /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !isNaN(Date.parse(s)),
    'must be an ISO time (e.g. 2026-05-01T00:00:00Z)',
  )
  .transform((s) => Date.parse(s));
