import type { PauseControl } from './partition-pauses';

/** Why a partition is not fetched: its read-ahead window is full, or it waits on its environment. */
export type PauseReason = 'window' | 'environment';

/**
 * The one place the bridge pauses and resumes its consumer's partitions: a partition is
 * paused while any reason holds and resumed once none does, so a window draining below its
 * low mark never resumes a partition whose starts wait on an outage, nor the reverse. KafkaJS
 * keeps a pause across a rebalance, so a new window resumes its own reason first.
 */
export class PartitionFlow {
  private readonly reasons = new Map<string, Set<PauseReason>>();

  constructor(private readonly consumer: PauseControl) {}

  private keyOf(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  pause(reason: PauseReason, topic: string, partition: number): void {
    const key = this.keyOf(topic, partition);
    const held = this.reasons.get(key) ?? new Set<PauseReason>();
    held.add(reason);
    this.reasons.set(key, held);
    // Always told (KafkaJS's pause is idempotent): a consumer restarted after a crash forgot
    // its pauses, and the next pause of a reason still held restores it.
    this.consumer.pause([{ topic, partitions: [partition] }]);
  }

  resume(reason: PauseReason, topic: string, partition: number): void {
    const key = this.keyOf(topic, partition);
    const held = this.reasons.get(key);
    if (!held?.delete(reason) || held.size > 0) return;
    this.reasons.delete(key);
    this.consumer.resume([{ topic, partitions: [partition] }]);
  }

  /** True while `reason` holds the partition paused. */
  isPaused(reason: PauseReason, topic: string, partition: number): boolean {
    return this.reasons.get(this.keyOf(topic, partition))?.has(reason) ?? false;
  }

  /** The pause and resume of one reason, as PartitionPauses and DetachedBatches take them. */
  control(reason: PauseReason): PauseControl {
    const each = (
      topics: Array<{ topic: string; partitions?: number[] }>,
      act: (topic: string, partition: number) => void,
    ) => {
      for (const { topic, partitions = [] } of topics) for (const p of partitions) act(topic, p);
    };
    return {
      pause: (topics) => each(topics, (t, p) => this.pause(reason, t, p)),
      resume: (topics) => each(topics, (t, p) => this.resume(reason, t, p)),
    };
  }
}
