/**
 * `npx onceflow dlq reap [--topic T]`: keeps `dlq_replays` as long as the DLQ it marks. A
 * mark exists so an entry is never replayed twice; once Kafka's retention has deleted the
 * entry (BRIDGE_DLQ_RETENTION_DAYS on the DLQ topic), no replay can read it again and its mark
 * guards nothing. The command asks Kafka for each marked DLQ partition's earliest offset and
 * drops the marks below it (all of them when the DLQ topic is gone), except unconfirmed sends.
 * It takes the replay lock, so it never runs beside a replay of the same schema.
 */
import { KafkaJSProtocolError } from 'kafkajs';
import {
  listMarkedPartitions,
  type MarkedPartition,
  reapReplayMarks,
  tryLockReplays,
  unlockReplays,
} from '../db/dlq-replay-store';
import { parseArgsOrUsage } from '../util/usage-error';
import type { OpsContext } from './context';
import { dlqTopics } from './dlq-entries';
import { formatFields, InvalidStateError, type CommandResult } from './output';

/** Each DLQ topic's earliest offset per partition; null for a topic Kafka does not have. */
async function earliestOffsets(
  ctx: OpsContext,
  topics: readonly string[],
): Promise<Map<string, Map<number, string> | null>> {
  const admin = ctx.kafkaClient().admin();
  await admin.connect();
  try {
    const out = new Map<string, Map<number, string> | null>();
    for (const topic of topics) {
      try {
        const offsets = await admin.fetchTopicOffsets(topic);
        out.set(topic, new Map(offsets.map((o) => [o.partition, o.low])));
      } catch (err) {
        // Only a definite "no such topic" drops its marks; any other error leaves them alone.
        if (err instanceof KafkaJSProtocolError && err.type === 'UNKNOWN_TOPIC_OR_PARTITION')
          out.set(topic, null);
        else throw err;
      }
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

export async function reapDlqMarks(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { values } = parseArgsOrUsage({
    args: argv,
    options: { topic: { type: 'string' } },
    strict: true,
  });
  const topics = dlqTopics(ctx, values.topic);
  const client = await ctx.db().connect();
  try {
    if (!(await tryLockReplays(client)))
      throw new InvalidStateError(
        'a dlq replay is running on this database schema; run again once it has finished',
      );
    try {
      const marked = await listMarkedPartitions(client, topics);
      const earliest = await earliestOffsets(ctx, [...new Set(marked.map((m) => m.dlqTopic))]);
      const bounds = marked.flatMap((m): Array<MarkedPartition & { earliest: string | null }> => {
        const topic = earliest.get(m.dlqTopic);
        if (topic === null) return [{ ...m, earliest: null }];
        const low = topic?.get(m.partition);
        // A partition Kafka did not report is left alone.
        return low === undefined ? [] : [{ ...m, earliest: low }];
      });
      const dropped = await reapReplayMarks(client, bounds);
      return {
        json: { topics, partitions: bounds.length, dropped },
        human: formatFields([
          ['DLQ topics', topics.join(', ')],
          ['partitions weighed', bounds.length],
          ['marks dropped', `${dropped} (their entries are no longer on the DLQ)`],
        ]),
      };
    } finally {
      await unlockReplays(client);
    }
  } finally {
    client.release();
  }
}
