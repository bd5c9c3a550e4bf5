import { randomBytes } from 'node:crypto';
import type { IHeaders, Kafka } from 'kafkajs';
import { readTopicsToEnd } from './topic-reader';
import { DLQ_HEADER, readDlqHeaders, type DlqHeaders } from '../events/dlq-message';
import { isDlqStub } from '../events/dlq-stub-format';

/** One dead-lettered message as read back from a DLQ topic. */
export interface DlqEntry extends DlqHeaders {
  dlqTopic: string;
  partition: number;
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
  /**
   * A stub record (`dlq-stub: true`, src/events/dlq-stub-format.ts): its value describes the
   * message, which stayed in the source topic; replaying the stub itself would be wrong.
   */
  stub: boolean;
}

/** Options of readDlq. */
export interface ReadDlqOptions {
  /** Give up when the end is not reached in this time. Default: 60 000 ms. */
  timeoutMs?: number;
}

/**
 * Every message of a DLQ topic from the beginning up to the high watermarks seen at the
 * start, then stops: a snapshot, so a DLQ still growing does not keep the command running.
 * A source topic that never had poison has no DLQ topic yet: that is an empty DLQ. Commits
 * nothing and deletes its throw-away consumer group, so it never moves anyone's offsets.
 */
export async function readDlq(
  kafka: Kafka,
  dlqTopic: string,
  options: ReadDlqOptions = {},
): Promise<DlqEntry[]> {
  const entries: DlqEntry[] = [];
  await readTopicsToEnd(
    kafka,
    [dlqTopic],
    (_topic, partition, message) => {
      const headers = message.headers ?? {};
      entries.push({
        dlqTopic,
        partition,
        offset: message.offset,
        timestamp: new Date(Number(message.timestamp)).toISOString(),
        key: message.key,
        value: message.value,
        headers,
        stub: isDlqStub(headers),
        ...readDlqHeaders(headers),
      });
    },
    {
      groupId: `onceflow-ops-dlq-${randomBytes(6).toString('hex')}`,
      timeoutMs: options.timeoutMs ?? 60_000,
    },
  );
  return entries.sort((a, b) =>
    a.partition !== b.partition ? a.partition - b.partition : Number(a.offset) - Number(b.offset),
  );
}

/**
 * Headers for republishing a DLQ message to its source topic: the original headers, without
 * the bookkeeping of the last failure, but keeping `dlq-first-failed-at` and
 * `dlq-failure-count` so a re-failure keeps its age and count (buildDlqMessage reads them).
 * The event's own headers (event-id, aggregate-id, …) are untouched, so the bridge derives
 * the same identity and deduplicates a replay of something already started.
 */
export function replayHeaders(headers: IHeaders): IHeaders {
  const keep = new Set<string>([DLQ_HEADER.firstFailedAt, DLQ_HEADER.failureCount]);
  // No prototype: a header named `__proto__` stays an ordinary header, never a prototype swap.
  const out: IHeaders = Object.create(null) as IHeaders;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (name.startsWith('dlq-') && !keep.has(name)) continue;
    out[name] = value;
  }
  return out;
}
