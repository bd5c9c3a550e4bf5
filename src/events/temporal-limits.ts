import { createHash } from 'node:crypto';
import { markdownCode } from '../util/shell-quote';

/**
 * Temporal's size limits on what the bridge sends with a start, checked before the start so a
 * valid event is never `start-rejected` (or stuck in visibility) for its length on any server.
 * The workflow ID bound lives with its derivation (identity.ts, MAX_WORKFLOW_ID_LENGTH).
 */

/** Static summary: Temporal accepts at most 400 bytes (UTF-8). */
export const MAX_SUMMARY_BYTES = 400;

/** Static details: Temporal accepts at most 20,000 bytes (UTF-8). */
export const MAX_DETAILS_BYTES = 20_000;

/** A Keyword search attribute value: Temporal's per-value limit is 2 KiB. */
export const MAX_KEYWORD_BYTES = 2048;

/**
 * A Keyword search attribute value in characters: the SQL visibility schemas (MySQL 8,
 * PostgreSQL 12) store custom Keyword attributes in `VARCHAR(255)` columns, which would
 * refuse a longer value when the visibility record is written.
 */
export const MAX_KEYWORD_LENGTH = 255;

const ELLIPSIS = '…';
/** Hex digits of the sha256 that stands for the cut-off part of a shortened keyword. */
const KEYWORD_HASH_HEX = 32;

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * `text` within `maxBytes` of UTF-8 and `maxChars` UTF-16 units: unchanged when it fits,
 * else cut on a code point boundary (never between the halves of a surrogate pair) and ended
 * with `…`. For human text whose exact value does not matter (summary, details).
 */
export function truncateText(text: string, maxBytes: number, maxChars = Infinity): string {
  if (text.length <= maxChars && utf8Length(text) <= maxBytes) return text;
  const budgetBytes = maxBytes - utf8Length(ELLIPSIS);
  const budgetChars = maxChars - ELLIPSIS.length;
  let bytes = 0;
  let chars = 0;
  let out = '';
  for (const ch of text) {
    const b = utf8Length(ch);
    if (bytes + b > budgetBytes || chars + ch.length > budgetChars) break;
    out += ch;
    bytes += b;
    chars += ch.length;
  }
  return out + ELLIPSIS;
}

/**
 * `text` as a Markdown code span (markdownCode) of at most `maxBytes`, shortened with `…`
 * INSIDE the span when it does not fit: cutting a finished summary could drop the closing
 * fence, and everything after an unclosed fence would be read as Markdown again.
 */
export function markdownCodeWithin(text: string, maxBytes: number): string {
  let budget = maxBytes;
  for (;;) {
    const span = markdownCode(truncateText(text, budget));
    const over = utf8Length(span) - maxBytes;
    if (over <= 0 || budget <= 8) return span;
    budget -= over;
  }
}

/**
 * Temporal's limit on a fairness key (a run's tenant): 64 bytes. A longer tenant becomes a
 * readable head, `~` and a hash (boundKeyword), so two tenants never share one key.
 */
export const MAX_FAIRNESS_KEY_BYTES = 64;

/**
 * A Keyword search attribute value within MAX_KEYWORD_LENGTH and MAX_KEYWORD_BYTES (or the
 * bounds given: a fairness key's, MAX_FAIRNESS_KEY_BYTES): unchanged
 * when it fits and is well-formed Unicode, else a readable head, `~` and a sha256 of the whole
 * value, so two different values stay different and a search by the shortened value finds
 * exactly this event.
 */
export function boundKeyword(
  value: string,
  maxBytes = MAX_KEYWORD_BYTES,
  maxChars = MAX_KEYWORD_LENGTH,
): string {
  const wellFormed = (value as string & { isWellFormed(): boolean }).isWellFormed();
  if (wellFormed && value.length <= maxChars && utf8Length(value) <= maxBytes) return value;
  // A lone surrogate would reach visibility as U+FFFD, merging it with a real U+FFFD; the
  // hash of its UTF-16 code units keeps the two apart.
  const hash = createHash('sha256')
    .update(Buffer.from(value, 'utf16le'))
    .digest('hex')
    .slice(0, KEYWORD_HASH_HEX);
  const room = KEYWORD_HASH_HEX + 1;
  const whole = (value as string & { toWellFormed(): string }).toWellFormed();
  const cut = truncateText(whole, maxBytes - room, maxChars - room);
  // A cut head ends with `…`; the hash already says the value goes on.
  const head = cut === whole ? whole : cut.slice(0, -ELLIPSIS.length);
  return `${head}~${hash}`;
}
