import type { Kafka, KafkaMessage } from 'kafkajs';

/** Where a record asked for by its coordinates stands. */
export type RecordAt =
  | { found: true; message: KafkaMessage }
  | {
      found: false;
      /**
       * `deleted`: below the partition's log start (retention or a records deletion removed
       * it); `absent`: the topic, partition or offset does not exist (beyond the end, compacted
       * away, an aborted transaction); `timeout`: not reached in time.
       */
      why: 'deleted' | 'absent' | 'timeout';
    };

/** Options of readRecordsAt. */
export interface ReadRecordsAtOptions {
  /** A consumer group of its own; deleted afterwards. */
  groupId: string;
  /** Give up on the records not reached in this time. Default: 60 000 ms. */
  timeoutMs?: number;
}

/** The key of a coordinate in readRecordsAt's answer: `partition/offset`. */
export function recordKey(partition: number, offset: string | bigint): string {
  return `${partition}/${offset}`;
}

/**
 * Reads the records of `topic` at the given partitions and offsets, and only those: the group
 * starts at the first wanted offset of each partition (its committed offset, set before it
 * joins) and seeks past the gaps between wanted offsets, so a few records a week apart cost a
 * few fetches, not the week in between. Commits nothing and deletes its group.
 */
export async function readRecordsAt(
  kafka: Kafka,
  topic: string,
  wanted: ReadonlyArray<{ partition: number; offset: string }>,
  options: ReadRecordsAtOptions,
): Promise<Map<string, RecordAt>> {
  const out = new Map<string, RecordAt>();
  const queues = new Map<number, bigint[]>();
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = (await admin.listTopics()).includes(topic)
      ? await admin.fetchTopicOffsets(topic)
      : [];
    const bounds = new Map(offsets.map((p) => [p.partition, p]));
    for (const { partition, offset } of wanted) {
      const at = BigInt(offset);
      const b = bounds.get(partition);
      if (!b || at >= BigInt(b.high))
        out.set(recordKey(partition, at), { found: false, why: 'absent' });
      else if (at < BigInt(b.low))
        out.set(recordKey(partition, at), { found: false, why: 'deleted' });
      else if (!queues.get(partition)?.includes(at))
        queues.set(partition, [...(queues.get(partition) ?? []), at]);
    }
    if (queues.size === 0) return out;
    for (const q of queues.values()) q.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    // Start where the records are; every other partition at its end (nothing to read there).
    await admin.setOffsets({
      groupId: options.groupId,
      topic,
      partitions: offsets.map((p) => ({
        partition: p.partition,
        offset: (queues.get(p.partition)?.[0] ?? BigInt(p.high)).toString(),
      })),
    });
    try {
      await consume(kafka, topic, queues, out, options);
    } finally {
      await admin.deleteGroups([options.groupId]).catch(() => undefined);
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

async function consume(
  kafka: Kafka,
  topic: string,
  queues: Map<number, bigint[]>,
  out: Map<string, RecordAt>,
  options: ReadRecordsAtOptions,
): Promise<void> {
  const consumer = kafka.consumer({ groupId: options.groupId });
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const pending = () => [...queues.values()].some((q) => q.length > 0);
  await consumer.connect();
  const timer = setTimeout(finish, options.timeoutMs ?? 60_000);
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, isStale }) => {
        const q = queues.get(batch.partition);
        if (!q || q.length === 0) return;
        for (const message of batch.messages) {
          if (isStale()) return;
          const at = BigInt(message.offset);
          // A wanted offset the batch stepped over holds no record we can read.
          while (q.length > 0 && q[0]! < at) {
            out.set(recordKey(batch.partition, q.shift()!), { found: false, why: 'absent' });
          }
          if (q[0] === at)
            out.set(recordKey(batch.partition, q.shift()!), { found: true, message });
          if (q.length === 0) break;
        }
        if (!pending()) finish();
        else if (q.length > 0 && q[0]! > BigInt(batch.lastOffset()) + 1n) {
          consumer.seek({ topic, partition: batch.partition, offset: q[0]!.toString() });
        }
      },
    });
    await done;
    for (const [partition, q] of queues) {
      for (const at of q) out.set(recordKey(partition, at), { found: false, why: 'timeout' });
    }
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
}
