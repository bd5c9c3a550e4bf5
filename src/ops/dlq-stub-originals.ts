import { createHash, randomBytes } from 'node:crypto';
import type { IHeaders, Kafka } from 'kafkajs';
import { DLQ_HEADER } from '../events/dlq-message';
import { replayHeaders, type DlqEntry } from '../kafka/dlq-reader';
import { readDlqStubLocator, type DlqStubLocator } from '../events/dlq-stub-format';
import { firstHeaderText } from '../events/headers';
import { readRecordsAt, recordKey, type RecordAt } from '../kafka/records-at';

/**
 * A stub DLQ record holds hashes and the source coordinates, not the message (the DLQ refused
 * the full record; src/kafka-bridge/dlq-stub.ts). Replaying the stub itself would send its
 * JSON description as if it were the event, which the bridge dead-letters again as
 * `missing-identity`. So `dlq replay` reads the original back from the source topic at those
 * coordinates, checks it against the stub's sha256 of key and value, and replays that; when
 * the source no longer holds it (retention, compaction, a recreated topic) the stub is refused
 * with the reason, unmarked: nothing else can bring the payload back.
 */

/** A stub's original, read back and checked, or why it cannot be replayed. */
export type StubOriginal =
  | {
      found: true;
      source: { topic: string; partition: number; offset: string };
      key: Buffer | null;
      value: Buffer | null;
      headers: IHeaders;
    }
  | { found: false; refusal: string };

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function matches(bytes: Buffer | null, digest: DlqStubLocator['key']): boolean {
  if (bytes === null || digest === null) return bytes === null && digest === null;
  return bytes.length === digest.size && sha256(bytes) === digest.sha256;
}

/** Judges what was found at a stub's coordinates. Pure. */
export function judgeOriginal(locator: DlqStubLocator, at: RecordAt): StubOriginal {
  const { topic, partition, offset } = locator.source;
  const where = `${topic} partition ${partition} offset ${offset}`;
  if (!at.found) {
    const refusal = {
      deleted: `the source topic no longer holds the original (${where}: deleted by its retention)`,
      absent: `the source topic has no record at ${where} (beyond its end, compacted away, or the topic was recreated)`,
      timeout: `the original at ${where} could not be read in time`,
    }[at.why];
    return { found: false, refusal };
  }
  const { key, value, headers } = at.message;
  if (!matches(key, locator.key) || !matches(value, locator.value)) {
    return {
      found: false,
      refusal: `the record at ${where} is not the stub's original (its sha256 differs; the topic was recreated?)`,
    };
  }
  return { found: true, source: locator.source, key, value, headers: headers ?? {} };
}

/** The stubs' originals, read from their source topics (a few fetches per topic). */
export async function fetchStubOriginals(
  kafka: Kafka,
  stubs: readonly DlqEntry[],
): Promise<Map<DlqEntry, StubOriginal>> {
  const out = new Map<DlqEntry, StubOriginal>();
  const byTopic = new Map<string, Array<{ stub: DlqEntry; locator: DlqStubLocator }>>();
  for (const stub of stubs) {
    const locator = readDlqStubLocator(stub.value);
    if (locator === undefined) {
      out.set(stub, { found: false, refusal: 'a stub record whose value is not the stub JSON' });
    } else if (locator.source.topic !== stub.sourceTopic) {
      out.set(stub, {
        found: false,
        refusal: `the stub's value names source topic ${locator.source.topic}, its header ${stub.sourceTopic}`,
      });
    } else {
      const list = byTopic.get(locator.source.topic) ?? [];
      list.push({ stub, locator });
      byTopic.set(locator.source.topic, list);
    }
  }
  for (const [topic, list] of byTopic) {
    const found = await readRecordsAt(
      kafka,
      topic,
      list.map(({ locator }) => locator.source),
      { groupId: `onceflow-ops-dlq-original-${randomBytes(6).toString('hex')}` },
    );
    for (const { stub, locator } of list) {
      const { partition, offset } = locator.source;
      out.set(stub, judgeOriginal(locator, found.get(recordKey(partition, offset))!));
    }
  }
  return out;
}

/** The earlier of two ISO times; a missing or malformed one does not count. */
function earlier(a: string | undefined, b: string | undefined): string | undefined {
  const ta = a === undefined ? NaN : Date.parse(a);
  const tb = b === undefined ? NaN : Date.parse(b);
  if (Number.isNaN(ta)) return Number.isNaN(tb) ? undefined : b;
  return Number.isNaN(tb) || ta <= tb ? a : b;
}

/**
 * Headers of a replayed original: its own (minus old dlq-* bookkeeping, as for any replay),
 * with the age and count of its failures carried over, so a re-failure counts up: the stub
 * records this failure (its count restarts at 1), the original may carry earlier ones.
 */
export function originalReplayHeaders(original: IHeaders, stub: DlqEntry): IHeaders {
  const headers = replayHeaders(original);
  const first = earlier(firstHeaderText(original, DLQ_HEADER.firstFailedAt), stub.firstFailedAt);
  const before = Number(firstHeaderText(original, DLQ_HEADER.failureCount) ?? 0);
  const count = Math.max(
    (Number.isSafeInteger(before) && before > 0 ? before : 0) + 1,
    Number(stub.failureCount ?? 1) || 1,
  );
  if (first !== undefined) headers[DLQ_HEADER.firstFailedAt] = first;
  headers[DLQ_HEADER.failureCount] = String(count);
  return headers;
}
