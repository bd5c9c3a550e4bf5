import { randomBytes } from 'node:crypto';
import type { IHeaders, Kafka } from 'kafkajs';
import { DLQ_HEADER } from './dlq-message';

/** One dead-lettered message as read back from a DLQ topic. */
export interface DlqEntry {
  dlqTopic: string;
  partition: number;
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
  reason?: string;
  error?: string;
  sourceTopic?: string;
  sourcePartition?: string;
  sourceOffset?: string;
  firstFailedAt?: string;
  failureCount?: string;
}

/** Options of readDlq. */
export interface ReadDlqOptions {
  /** Give up when the end is not reached in this time. Default: 60 000 ms. */
  timeoutMs?: number;
  /** Told the snapshot's end offset per partition (what `dlq replay` marks as handled). */
  onEnds?: (ends: ReadonlyMap<number, bigint>) => void;
}

/** Reading a DLQ did not reach the high watermarks in time. */
export class DlqReadTimeoutError extends Error {
  override readonly name = 'DlqReadTimeoutError';
}

function headerText(headers: IHeaders, name: string): string | undefined {
  const raw = headers[name];
  const v = Array.isArray(raw) ? raw[0] : raw;
  return v === undefined ? undefined : Buffer.isBuffer(v) ? v.toString('utf8') : String(v);
}

async function highWatermarks(kafka: Kafka, topic: string): Promise<Map<number, bigint>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { topics } = await admin.fetchTopicMetadata({ topics: [] });
    // A source topic that never had poison has no DLQ topic yet: that is an empty DLQ.
    if (!topics.some((t) => t.name === topic)) return new Map();
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(
      offsets
        .filter((p) => BigInt(p.high) > BigInt(p.low))
        .map((p) => [p.partition, BigInt(p.high)]),
    );
  } finally {
    await admin.disconnect();
  }
}

/**
 * Every message of a DLQ topic from the beginning up to the high watermarks seen at the
 * start, then stops: a snapshot, so a DLQ still growing does not keep the command running.
 * Uses a throw-away consumer group (deleted afterwards) and commits nothing, so it never
 * moves anyone's offsets.
 */
export async function readDlq(
  kafka: Kafka,
  dlqTopic: string,
  options: ReadDlqOptions = {},
): Promise<DlqEntry[]> {
  const ends = await highWatermarks(kafka, dlqTopic);
  options.onEnds?.(ends);
  if (ends.size === 0) return [];
  const groupId = `onceflow-ops-dlq-${randomBytes(6).toString('hex')}`;
  const consumer = kafka.consumer({ groupId });
  const entries: DlqEntry[] = [];
  const pending = new Set(ends.keys());
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: dlqTopic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new DlqReadTimeoutError(`reading ${dlqTopic} did not reach its end`)),
        options.timeoutMs ?? 60_000,
      );
      const finish = () => {
        clearTimeout(timer);
        resolve();
      };
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ partition, message }) => {
            const end = ends.get(partition);
            if (end === undefined || BigInt(message.offset) >= end) return;
            const headers = message.headers ?? {};
            entries.push({
              dlqTopic,
              partition,
              offset: message.offset,
              timestamp: new Date(Number(message.timestamp)).toISOString(),
              key: message.key,
              value: message.value,
              headers,
              reason: headerText(headers, DLQ_HEADER.reason),
              error: headerText(headers, DLQ_HEADER.error),
              sourceTopic: headerText(headers, DLQ_HEADER.sourceTopic),
              sourcePartition: headerText(headers, DLQ_HEADER.sourcePartition),
              sourceOffset: headerText(headers, DLQ_HEADER.sourceOffset),
              firstFailedAt: headerText(headers, DLQ_HEADER.firstFailedAt),
              failureCount: headerText(headers, DLQ_HEADER.failureCount),
            });
            if (BigInt(message.offset) + 1n >= end) {
              pending.delete(partition);
              if (pending.size === 0) finish();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteGroups([groupId]).catch(() => undefined);
    await admin.disconnect();
  }
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
  const out: IHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (name.startsWith('dlq-') && !keep.has(name)) continue;
    out[name] = value;
  }
  return out;
}
