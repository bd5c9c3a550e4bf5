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

/** A pause taken for one batch or start: it lasts until released. */
export interface PauseHold {
  /** The batch now waits for another reason (its wait was `slow`, then classified). */
  update(wait: PartitionWait): void;
  /** Resumes fetching the partition, unless another hold still holds it. */
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
  /** Each paused partition's holds, oldest first: a batch taking it in, starts waiting in it. */
  private readonly held = new Map<string, Array<PausedPartition & { token: object }>>();

  constructor(private readonly now: () => number = Date.now) {}

  private keyOf(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  /** Pauses `topic`/`partition` on `consumer` until this hold and every other is released. */
  hold(consumer: PauseControl, topic: string, partition: number, wait: PartitionWait): PauseHold {
    const key = this.keyOf(topic, partition);
    const token = {};
    const holds = this.held.get(key) ?? [];
    holds.push({ topic, partition, ...wait, since: this.now(), token });
    this.held.set(key, holds);
    consumer.pause([{ topic, partitions: [partition] }]);
    const mine = () => this.held.get(key)?.find((h) => h.token === token);
    return {
      update: (next) => {
        const state = mine();
        if (state) Object.assign(state, next);
      },
      release: () => {
        const list = this.held.get(key);
        if (!list || !mine()) return;
        const left = list.filter((h) => h.token !== token);
        if (left.length > 0) return void this.held.set(key, left);
        this.held.delete(key);
        consumer.resume([{ topic, partitions: [partition] }]);
      },
    };
  }

  /** True while something of `topic`/`partition` holds it paused. */
  isHeld(topic: string, partition: number): boolean {
    return this.held.has(this.keyOf(topic, partition));
  }

  /** The paused partitions and why (the latest hold's reason), oldest first. */
  list(): PausedPartition[] {
    return [...this.held.values()]
      .map((holds) => {
        const { token: _token, ...latest } = holds.at(-1)!;
        return { ...latest, since: holds[0]!.since };
      })
      .sort((a, b) => a.since - b.since);
  }
}
