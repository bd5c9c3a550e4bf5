import type { Consumer } from 'kafkajs';
import type { Dependency, EnvironmentFault } from './error-codes';

/**
 * Why a partition's batch waits on its environment: the dependency, and its fault as
 * classified (error-codes.ts), or `slow` while a call has been in flight longer than
 * SLOW_CALL_MS and has not failed yet (a hung server answers nothing).
 */
export interface PartitionWait {
  dependency: Dependency;
  fault: EnvironmentFault | 'slow';
}

/** One paused partition, for the `onceflow_bridge_partition_paused` gauge and the log. */
export interface PausedPartition extends PartitionWait {
  topic: string;
  partition: number;
  /** When it was paused (ms since the epoch). */
  since: number;
}

/** A pause taken for one batch: it lasts until released. */
export interface PauseHold {
  /** The batch now waits for another reason (its wait was `slow`, then classified). */
  update(wait: PartitionWait): void;
  /** Resumes fetching the partition, unless a later hold took it over meanwhile. */
  release(): void;
}

/** The consumer's pause and resume, per topic-partition (KafkaJS Consumer). */
export type PauseControl = Pick<Consumer, 'pause' | 'resume'>;

/**
 * The partitions the bridge paused because their batch waits on its environment (a stall
 * stays on its partition: docs/bridge.md, "What it does with each message"). KafkaJS fetches
 * a paused partition no more (its fetch requests leave it out, a response already on its way
 * is dropped), and the position it fetches from on resume is the handled prefix the batch
 * resolved, so nothing is skipped and nothing needs a seek. A pause survives a rebalance in
 * KafkaJS (its subscription state keeps it), so only the hold that took it resumes it.
 */
export class PartitionPauses {
  private readonly held = new Map<string, PausedPartition & { token: object }>();

  constructor(private readonly now: () => number = Date.now) {}

  private keyOf(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  /** Pauses `topic`/`partition` on `consumer` until the hold is released. */
  hold(consumer: PauseControl, topic: string, partition: number, wait: PartitionWait): PauseHold {
    const key = this.keyOf(topic, partition);
    const token = {};
    this.held.set(key, { topic, partition, ...wait, since: this.now(), token });
    consumer.pause([{ topic, partitions: [partition] }]);
    const mine = () => this.held.get(key)?.token === token;
    return {
      update: (next) => {
        const state = this.held.get(key);
        if (state?.token === token) Object.assign(state, next);
      },
      release: () => {
        if (!mine()) return;
        this.held.delete(key);
        consumer.resume([{ topic, partitions: [partition] }]);
      },
    };
  }

  /** True while a batch of `topic`/`partition` holds it paused. */
  isHeld(topic: string, partition: number): boolean {
    return this.held.has(this.keyOf(topic, partition));
  }

  /** The paused partitions and why, oldest first. */
  list(): PausedPartition[] {
    return [...this.held.values()]
      .map(({ token: _token, ...paused }) => paused)
      .sort((a, b) => a.since - b.since);
  }
}
