import type { Kafka, KafkaMessage } from 'kafkajs';

/** Options of readTopicsToEnd. */
export interface ReadTopicsOptions {
  /** A consumer group of its own; deleted afterwards so readers leave no groups behind. */
  groupId: string;
  /** Give up when the end is not reached within this time. Default: 120 000 ms. */
  timeoutMs?: number;
}

/** The end was not reached in time (a partition stalled or its leader is unavailable). */
export class TopicReadTimeoutError extends Error {
  override readonly name = 'TopicReadTimeoutError';
  constructor(
    readonly topics: readonly string[],
    readonly pending: readonly string[],
    timeoutMs: number,
  ) {
    super(
      `reading ${topics.join(', ')} to the end took longer than ${timeoutMs} ms; unfinished partitions: ${pending.join(', ')}`,
    );
  }
}

type OnMessage = (topic: string, partition: number, message: KafkaMessage) => void;

/** What readTopicsToEnd found besides the messages. */
export interface TopicReadResult {
  /** Topics whose low watermark is above 0: retention or compaction deleted older messages. */
  trimmed: string[];
  /**
   * Per topic, the high watermark of each partition that had messages: where the snapshot
   * ended.
   */
  ends: Map<string, Map<number, bigint>>;
}

/**
 * Reads every message of `topics` from the beginning up to the high watermarks taken at the
 * start, then stops: later messages belong to the next run, and a reader that waited for them
 * would never finish on a live topic. Topics that do not exist are skipped.
 */
export async function readTopicsToEnd(
  kafka: Kafka,
  topics: readonly string[],
  onMessage: OnMessage,
  options: ReadTopicsOptions,
): Promise<TopicReadResult> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    // Last offset to read per `topic/partition`; partitions with nothing to read are left out.
    const pending = new Map<string, bigint>();
    const trimmed = new Set<string>();
    const ends = new Map<string, Map<number, bigint>>();
    for (const topic of topics.filter((t) => existing.has(t))) {
      for (const p of await admin.fetchTopicOffsets(topic)) {
        if (BigInt(p.low) > 0n) trimmed.add(topic);
        if (BigInt(p.high) > BigInt(p.low)) {
          pending.set(`${topic}/${p.partition}`, BigInt(p.high) - 1n);
          if (!ends.has(topic)) ends.set(topic, new Map());
          ends.get(topic)!.set(p.partition, BigInt(p.high));
        }
      }
    }
    if (pending.size === 0) return { trimmed: [...trimmed], ends };
    const wanted = [...new Set([...pending.keys()].map((k) => k.slice(0, k.lastIndexOf('/'))))];
    try {
      await consumeUntilDone(kafka, wanted, pending, onMessage, options.groupId, timeoutMs);
    } finally {
      // Also after a timeout: a read must leave no consumer group behind.
      await admin.deleteGroups([options.groupId]).catch(() => undefined);
    }
    return { trimmed: [...trimmed], ends };
  } finally {
    await admin.disconnect();
  }
}

async function consumeUntilDone(
  kafka: Kafka,
  topics: string[],
  pending: Map<string, bigint>,
  onMessage: OnMessage,
  groupId: string,
  timeoutMs: number,
): Promise<void> {
  const consumer = kafka.consumer({ groupId });
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const reached = (topic: string, partition: number, offset: string) => {
    const key = `${topic}/${partition}`;
    const last = pending.get(key);
    if (last === undefined || BigInt(offset) < last) return;
    pending.delete(key);
    if (pending.size === 0) finish();
  };
  // The last offset of a transactionally written partition is a transaction marker (or an
  // aborted record), which eachMessage never sees; the batch's last offset counts them, and
  // a fetch of nothing but markers still reports it here.
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    if (payload.firstOffset !== null) reached(payload.topic, payload.partition, payload.lastOffset);
  });
  await consumer.connect();
  const timer = setTimeout(finish, timeoutMs);
  try {
    await consumer.subscribe({ topics, fromBeginning: true });
    await consumer.run({
      // Nothing is committed: the group exists only for this read.
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        const last = pending.get(`${topic}/${partition}`);
        if (last === undefined) return;
        if (BigInt(message.offset) <= last) onMessage(topic, partition, message);
        reached(topic, partition, message.offset);
      },
    });
    await done;
    if (pending.size > 0) throw new TopicReadTimeoutError(topics, [...pending.keys()], timeoutMs);
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
}
