/**
 * Per partition: when its committed offset last advanced, and whether messages wait behind it.
 * Read at scrape time by the `onceflow_bridge_partition_stalled_seconds` gauge (metrics.ts).
 */
interface PartitionState {
  /** Next offset to handle (the committed offset, or the batch start before any commit). */
  committed: bigint;
  /** High watermark seen with the latest batch. */
  highWatermark: bigint;
  /** When `committed` last advanced, or when messages started waiting after a caught-up spell. */
  since: number;
}

export interface PartitionStall {
  topic: string;
  partition: number;
  /** Seconds since the committed offset last advanced while messages wait; 0 when caught up. */
  seconds: number;
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

  /** A batch was fetched: `firstOffset` is where it starts, `highWatermark` the partition's end. */
  noteBatch(topic: string, partition: number, firstOffset: string, highWatermark: string): void {
    const key = this.keyOf(topic, partition);
    const hw = BigInt(highWatermark);
    const state = this.partitions.get(key);
    if (!state) {
      this.partitions.set(key, {
        topic,
        partition,
        committed: BigInt(firstOffset),
        highWatermark: hw,
        since: this.now(),
      });
      return;
    }
    // Caught up until now: the stall clock starts with the first message that waits.
    if (state.committed >= state.highWatermark && hw > state.committed) state.since = this.now();
    state.highWatermark = hw > state.highWatermark ? hw : state.highWatermark;
  }

  /** The partition's committed offset is now `nextOffset`. */
  noteCommitted(topic: string, partition: number, nextOffset: string): void {
    const state = this.partitions.get(this.keyOf(topic, partition));
    const next = BigInt(nextOffset);
    if (!state || next <= state.committed) return;
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
      seconds: s.committed < s.highWatermark ? Math.max(0, (now - s.since) / 1000) : 0,
    }));
  }
}
