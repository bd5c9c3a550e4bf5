// The publishing steps of one worker share one idempotent producer, whose sends KafkaJS runs
// one at a time (one request in flight per broker, under its idempotence lock). Sent one by
// one, N steps publishing at once cost N produce requests in a row, each a round trip to every
// in-sync replica. Batched by arrival instead: a record that arrives while a send is in flight
// waits for it (as it would have anyway) and leaves with every record queued behind it in one
// request. A lone record leaves at once: batching adds no wait of its own.
import type { Message, Producer, RecordMetadata } from 'kafkajs';

/** Where one record went: its partition and offset. */
export interface RecordPosition {
  partition: number;
  offset: string;
}

/** Options of createPublishBatcher. */
export interface PublishBatcherOptions {
  /** The shared producer (connected on first use). */
  producer(): Promise<Producer>;
  /**
   * The partition the producer's partitioner gave a record sent in the last send: a record's
   * offset in a batch follows from it. Without it, records leave one per request.
   */
  partitionOf?(message: Message): number | undefined;
  /** Largest sum of record sizes in one request. Default: 1,000,000 (Kafka's 1 MiB batch limit, less headers). */
  maxBatchBytes?: number;
  /** Most records in one request. Default: 500. */
  maxBatchRecords?: number;
}

interface Pending {
  topic: string;
  message: Message;
  bytes: number;
  resolve(position: RecordPosition): void;
  reject(err: unknown): void;
}

/** A record's size as the batch limit counts it: value, key and headers. */
export function recordBytes(message: Message): number {
  const size = (v: unknown) =>
    v === null || v === undefined
      ? 0
      : Buffer.isBuffer(v)
        ? v.length
        : Buffer.byteLength(String(v));
  let bytes = size(message.value) + size(message.key);
  for (const [k, v] of Object.entries(message.headers ?? {})) bytes += k.length + size(v);
  return bytes;
}

/** Each record's position from a send's per-partition answer: the batch's order within a partition. */
function positionsOf(
  batch: readonly Pending[],
  sent: readonly RecordMetadata[],
  partitionOf: (message: Message) => number | undefined,
): RecordPosition[] {
  if (batch.length === 1) {
    const only = sent[0];
    return [{ partition: only?.partition ?? -1, offset: only?.baseOffset ?? only?.offset ?? '' }];
  }
  const next = new Map<number, bigint>();
  for (const m of sent) if (m.baseOffset !== undefined) next.set(m.partition, BigInt(m.baseOffset));
  return batch.map((p) => {
    const partition = partitionOf(p.message);
    const offset = partition === undefined ? undefined : next.get(partition);
    if (partition === undefined || offset === undefined)
      throw new Error('a batched record has no partition in the producer answer');
    next.set(partition, offset + 1n);
    return { partition, offset: String(offset) };
  });
}

/**
 * Sends records through one producer (acks from every in-sync replica), batched by arrival
 * (above). Records of one request share a topic. A request that fails for a reason a retry may
 * resolve fails each of its records with that error; one that fails for good is sent again
 * one record per request, so a record's own fault (too large, refused) is never another's.
 */
export function createPublishBatcher(options: PublishBatcherOptions) {
  const maxBytes = options.maxBatchBytes ?? 1_000_000;
  const maxRecords = options.partitionOf ? (options.maxBatchRecords ?? 500) : 1;
  const queue: Pending[] = [];
  let sending = false;

  /** The next request: the first queued record and those behind it of its topic that fit. */
  function take(): Pending[] {
    const first = queue[0]!;
    const batch: Pending[] = [];
    let bytes = 0;
    for (let i = 0; i < queue.length && batch.length < maxRecords;) {
      const p = queue[i]!;
      if (p.topic !== first.topic || (batch.length > 0 && bytes + p.bytes > maxBytes)) {
        i++;
        continue;
      }
      batch.push(p);
      bytes += p.bytes;
      queue.splice(i, 1);
    }
    return batch;
  }

  async function send(batch: Pending[]): Promise<void> {
    try {
      const producer = await options.producer();
      const sent = await producer.send({
        topic: batch[0]!.topic,
        acks: -1,
        messages: batch.map((p) => p.message),
      });
      const positions = positionsOf(batch, sent, (m) => options.partitionOf?.(m));
      batch.forEach((p, i) => p.resolve(positions[i]!));
    } catch (err) {
      if (batch.length > 1 && (err as { retriable?: boolean }).retriable === false) {
        for (const p of batch) await send([p]);
        return;
      }
      for (const p of batch) p.reject(err);
    }
  }

  async function pump(): Promise<void> {
    if (sending) return;
    sending = true;
    try {
      while (queue.length > 0) await send(take());
    } finally {
      sending = false;
    }
  }

  return {
    /** Sends one record (with the batch its arrival joins); resolves to where it went. */
    send(topic: string, message: Message): Promise<RecordPosition> {
      return new Promise<RecordPosition>((resolve, reject) => {
        queue.push({ topic, message, bytes: recordBytes(message), resolve, reject });
        void pump();
      });
    },
  };
}

export type PublishBatcher = ReturnType<typeof createPublishBatcher>;
