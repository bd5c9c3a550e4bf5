// Idempotency keys from the business entity and its step. Pure (workflow code derives keys).
import { sha256Hex, utf8Bytes } from '../util/sha256';
import { KEY_NAME } from './names';

/** Longest idempotency key we send: Stripe's limit, and the sandbox provider's. */
export const MAX_KEY_LENGTH = 255;

/**
 * Characters an ID keeps in a key as they are: printable ASCII except the three the key's own
 * grammar uses, `%` (the escape), `:` (between parts) and `~` (before a hash). Everything else
 * is `%` and two hex digits per UTF-8 byte. The key travels in an HTTP header, where only ASCII
 * is safe; escaping the grammar's own characters makes the key injective: a part never holds
 * a `:` (so the parts split back apart) nor a `~` (so a literal can never pose as a hash).
 */
function escapeKeyPart(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code > 0x20 && code < 0x7f && ch !== '%' && ch !== ':' && ch !== '~') out += ch;
    else for (const b of utf8Bytes(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Longest item ID a key keeps as it is; a longer one is its hash (`~` and 32 hex digits). */
const MAX_ITEM_PART = 64;

/** The hash an over-long part is replaced by (or ends with): 128 bits of its SHA-256. */
const hashOf = (text: string) => `~${sha256Hex(text).slice(0, 32)}`;

/**
 * The idempotency key of a step: `<kind>:<entityId>:<step>` (orders: `order:<orderId>:charge`),
 * and of one item's call of a repeated step `<kind>:<entityId>:<step>:<item>` (a cart's
 * `cart:c-1:reserve:apple`). Derived from the business intent (the entity, the step, the item),
 * never from the workflow ID, so a second workflow for the same entity (a producer re-send
 * under a fresh identity) would hit the same keys even if it got past the claim; never random
 * or time-based, so retries, worker crashes, resets and a cancellation workflow all use the
 * same key. At most MAX_KEY_LENGTH ASCII characters whatever the IDs: a longer entity ID keeps
 * a readable head and ends with `~` and 32 hex digits of its SHA-256, an item ID longer than
 * 64 characters is its hash. Injective: distinct (kind, entity, step, item) give distinct keys
 * (but for a collision of SHA-256's first 128 bits), because every part is escaped so that it
 * holds neither `:` nor `~`, and kinds and steps are names without either. Throws on a kind or
 * step that is not a short lower-case name, or an empty item (a programming error, caught by
 * the first test that runs the step).
 */
export function stepKey(kind: string, entityId: string, step: string, item?: string): string {
  if (!KEY_NAME.test(kind) || !KEY_NAME.test(step)) {
    throw new TypeError(
      `key kind ${JSON.stringify(kind)} and step ${JSON.stringify(step)} must be lower-case names`,
    );
  }
  if (item !== undefined && item.length === 0)
    throw new TypeError(`the item of step ${JSON.stringify(step)} must not be empty`);
  let tail = step;
  if (item !== undefined) {
    const part = escapeKeyPart(item);
    tail += `:${part.length <= MAX_ITEM_PART ? part : hashOf(item)}`;
  }
  const escaped = escapeKeyPart(entityId);
  const full = `${kind}:${escaped}:${tail}`;
  if (full.length <= MAX_KEY_LENGTH) return full;
  const hash = hashOf(entityId);
  const room = MAX_KEY_LENGTH - `${kind}:${hash}:${tail}`.length;
  // Never cut an escape (`%C3`) in half: the head stays valid, readable text.
  const head = escaped.slice(0, room).replace(/%[0-9A-F]?$/, '');
  return `${kind}:${head}${hash}:${tail}`;
}

/** Every named step's key for one entity: what a run's `status.keys` holds. */
export function keysFor(
  kind: string,
  entityId: string,
  names: readonly string[],
): Readonly<Record<string, string>> {
  return Object.fromEntries(names.map((n) => [n, stepKey(kind, entityId, n)]));
}
