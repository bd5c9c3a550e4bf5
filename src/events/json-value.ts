import { PoisonError } from './poison';

/** Decoding and parsing of a message value as JSON text, bounded so no parser can overflow. */

/**
 * Deepest accepted nesting of arrays and objects in a value. Checked on the text before
 * JSON.parse: recursive validators (zod's `z.json()`, canonical JSON) would otherwise throw a
 * RangeError on a value nested thousands deep. Real events nest a handful of levels.
 */
export const MAX_JSON_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 text of `bytes`; invalid UTF-8 is poison `unparseable` naming `what`. */
export function decodeUtf8(bytes: Buffer, what: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new PoisonError('unparseable', `${what} is not valid UTF-8`);
  }
}

/** True for application/json and application/*+json, with or without parameters. */
export function isJsonContentType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/**
 * Whether JSON text nests arrays and objects deeper than `limit`. One linear pass that skips
 * strings (brackets inside them do not nest) and stops as soon as the limit is passed; it does
 * not validate, JSON.parse does that next.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \\ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/**
 * The JSON value of a message value: UTF-8, nesting at most MAX_JSON_DEPTH, then JSON.parse;
 * each failure is poison `unparseable`.
 */
export function parseJsonValue(value: Buffer): unknown {
  const text = decodeUtf8(value, 'value');
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH))
    throw new PoisonError(
      'unparseable',
      `value nests arrays/objects more than ${MAX_JSON_DEPTH} levels deep`,
    );
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new PoisonError('unparseable', `value is not JSON: ${(err as Error).message}`);
  }
}
