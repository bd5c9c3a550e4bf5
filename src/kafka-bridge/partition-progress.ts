/**
 * Per partition: the committed offset, how far the partition can be read, and when the
 * committed offset last advanced while messages waited. Read at scrape time by the
 * `onceflow_bridge_consumer_lag` and `onceflow_bridge_partition_stalled_seconds` gauges
 * (metrics.ts), so both always agree.
 *
 * "How far it can be read" is the last stable offset, not the high watermark: the bridge reads
 * read_committed, and the records of a transaction still open (and everything after them) are
 * not readable until it ends; they are the producer's to finish, not the bridge's backlog
 * (docs/architecture.md, "Transactional producers").
 */
interface PartitionState {
  /** Next offset to handle (the committed offset, or the batch start before any commit). */
  committed: bigint;
  /** The readable end seen with the latest fetch: last stable offset (or high watermark). */
  end: bigint;
  /** When `committed` last advanced, or when messages started waiting after a caught-up spell. */
  since: number;
}

export interface PartitionStall {
  topic: string;
  partition: number;
  /** Seconds since the committed offset last advanced while messages wait; 0 when caught up. */
  seconds: number;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  /** Readable end minus the next offset to handle; 0 when caught up. */
  messages: number;
}

export class PartitionProgress {
  private readonly partitions = new Map<
    string,
    PartitionState & { topic: string; partition: number }
  >();

  constructor(private readonly now: () => number = Date.now) {}

  private keyOf(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  /**
   * A fetch returned records: `firstOffset` is where they start, `end` the partition's
   * readable end (readableEndOf: last stable offset, else high watermark).
   */
  noteBatch(topic: string, partition: number, firstOffset: string, end: string): void {
    const key = this.keyOf(topic, partition);
    const readable = BigInt(end);
    const state = this.partitions.get(key);
    if (!state) {
      this.partitions.set(key, {
        topic,
        partition,
        committed: BigInt(firstOffset),
        end: readable,
        since: this.now(),
      });
      return;
    }
    // Caught up until now: the stall clock starts with the first message that waits.
    if (state.committed >= state.end && readable > state.committed) state.since = this.now();
    if (readable > state.end) state.end = readable;
  }

  /** The partition's committed offset is now `nextOffset`. */
  noteCommitted(topic: string, partition: number, nextOffset: string): void {
    const key = this.keyOf(topic, partition);
    const next = BigInt(nextOffset);
    const state = this.partitions.get(key);
    if (!state) {
      // First sight of the partition is a fetch of nothing but transaction markers or aborted
      // records (KafkaJS does not hand those to eachBatch): it was read up to `next`.
      this.partitions.set(key, { topic, partition, committed: next, end: next, since: this.now() });
      return;
    }
    // Everything before a committed offset was readable (nothing is committed past a fetch).
    if (next > state.end) state.end = next;
    if (next <= state.committed) return;
    state.committed = next;
    state.since = this.now();
  }

  /** Forgets partitions we no longer own (their stall is their new owner's to report). */
  retainOnly(owned: (topic: string, partition: number) => boolean): void {
    for (const [key, s] of this.partitions)
      if (!owned(s.topic, s.partition)) this.partitions.delete(key);
  }

  stalls(): PartitionStall[] {
    const now = this.now();
    return [...this.partitions.values()].map((s) => ({
      topic: s.topic,
      partition: s.partition,
      seconds: s.committed < s.end ? Math.max(0, (now - s.since) / 1000) : 0,
    }));
  }

  lags(): PartitionLag[] {
    return [...this.partitions.values()].map((s) => ({
      topic: s.topic,
      partition: s.partition,
      messages: s.committed < s.end ? Number(s.end - s.committed) : 0,
    }));
  }
}
