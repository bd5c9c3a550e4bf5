// The records a partition handled beyond its committed offset, carried in the commit's
// metadata (as Confluent's Parallel Consumer does), so whoever reads the partition next (this
// bridge after a rebalance or a restart, or another) skips them instead of handling them
// again: no second dead letter, no second ledger lookup. Pure.

/** What a commit's metadata starts with: this format, and the offset it was written for. */
const PREFIX = 'onceflow:1:';

/**
 * Kafka keeps at most `offset.metadata.max.bytes` of metadata per commit (4096 by default):
 * the offsets past this many characters are left out, and are handled again when re-read
 * (deduplicated, as every re-read is).
 */
export const MAX_METADATA_CHARS = 3_500;

/**
 * `handled` (ascending, each beyond `offset`) as the metadata of a commit of `offset`:
 * `onceflow:1:<offset>:<gap>,<gap>,…`, each gap in base 36 from the offset before it. Null
 * when there is nothing beyond the offset.
 */
export function encodeCommitMetadata(offset: bigint, handled: readonly bigint[]): string | null {
  if (handled.length === 0) return null;
  let text = `${PREFIX}${offset.toString(36)}:`;
  let previous = offset;
  let first = true;
  for (const o of handled) {
    if (o <= previous && !first) continue;
    const part = `${first ? '' : ','}${(o - previous).toString(36)}`;
    if (text.length + part.length > MAX_METADATA_CHARS) break;
    text += part;
    previous = o;
    first = false;
  }
  return first ? null : text;
}

/**
 * The handled offsets a commit's metadata names, when it was written by this format for the
 * very offset committed (anything else, another client's metadata included, names none).
 */
export function decodeCommitMetadata(
  committed: bigint,
  metadata: string | null | undefined,
): Set<bigint> {
  const out = new Set<bigint>();
  if (!metadata?.startsWith(PREFIX)) return out;
  const [base, gaps] = metadata.slice(PREFIX.length).split(':');
  if (base === undefined || gaps === undefined || parseBase36(base) !== committed) return out;
  let at = committed;
  for (const gap of gaps.split(',')) {
    const step = parseBase36(gap);
    if (step === undefined || step < 1n) return new Set();
    at += step;
    out.add(at);
  }
  return out;
}

function parseBase36(text: string): bigint | undefined {
  if (!/^[0-9a-z]{1,13}$/.test(text)) return undefined;
  let n = 0n;
  for (const c of text) n = n * 36n + BigInt(parseInt(c, 36));
  return n;
}
