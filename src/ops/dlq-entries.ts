import type { DlqReplayMark } from '../db/dlq-replay-store';
import { readDlq, type DlqEntry } from '../kafka/dlq-reader';
import { dlqTopicOf, isDlqTopic } from '../events/dlq-topic';
import type { OpsContext } from './context';
import { UsageError } from './output';

/** What `dlq list` and `dlq replay` share: the DLQ topics in scope, entries and their views. */

/** Header a replayed message carries: which DLQ entry it came from (`topic/partition/offset`). */
export { REPLAY_OF_HEADER } from '../events/replay-header';

/** The DLQ topics in scope: `--topic` (a source topic) or every configured KAFKA_TOPICS. */
export function dlqTopics(ctx: OpsContext, topic: string | undefined): string[] {
  if (topic !== undefined) {
    if (isDlqTopic(topic)) throw new UsageError('--topic names the source topic, not its DLQ');
    return [dlqTopicOf(topic)];
  }
  return ctx.config.kafka.topics.map(dlqTopicOf);
}

/** Every entry of the DLQ topics (a snapshot up to their ends now), `reason` ones only if set. */
export async function readEntries(
  ctx: OpsContext,
  topics: readonly string[],
  reason: string | undefined,
): Promise<DlqEntry[]> {
  const out: DlqEntry[] = [];
  for (const t of topics) out.push(...(await readDlq(ctx.kafkaClient(), t)));
  return reason === undefined ? out : out.filter((e) => e.reason === reason);
}

/** The JSON view of an entry: text key/value, headers as strings, no raw buffers. */
export function describeEntry(e: DlqEntry) {
  return {
    dlqTopic: e.dlqTopic,
    partition: e.partition,
    offset: e.offset,
    timestamp: e.timestamp,
    key: e.key?.toString('utf8') ?? null,
    reason: e.reason,
    error: e.error,
    sourceTopic: e.sourceTopic,
    sourcePartition: e.sourcePartition,
    sourceOffset: e.sourceOffset,
    firstFailedAt: e.firstFailedAt,
    failureCount: e.failureCount,
    valueBytes: e.value?.length ?? 0,
    stub: e.stub,
  };
}

/** The JSON view of an entry's replay mark; null when it was never replayed. */
export function describeMark(m: DlqReplayMark | undefined) {
  if (m === undefined) return null;
  return {
    state: m.state,
    sent: m.sent,
    to: m.targetTopic,
    by: m.by,
    /** When it was sent (acknowledged), else when the send began or the old mark was adopted. */
    at: m.sentAt ?? m.recordedAt,
    sentAt: m.sentAt,
    recordedAt: m.recordedAt,
    attempts: m.attempts,
  };
}

/** The REPLAYED cell of a table: what happened and when. */
export function replayedCell(m: DlqReplayMark | undefined): string | undefined {
  if (m === undefined) return undefined;
  if (m.state === 'sent') return `${m.sent === 'original' ? 'original ' : ''}${m.sentAt}`;
  if (m.state === 'sending') return `unconfirmed since ${m.recordedAt}`;
  return `before ${m.recordedAt}`;
}

/** Entries per reason (`?` for none). */
export function countBy(entries: readonly DlqEntry[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) out[e.reason ?? '?'] = (out[e.reason ?? '?'] ?? 0) + 1;
  return out;
}
