/**
 * Which partitions this bridge owns, from the consumer group's events. KafkaJS's `isStale()`
 * only says "a seek is pending", so a batch stuck retrying an outage would otherwise keep
 * working on a partition after a rebalance gave it to another bridge. Ownership is per
 * generation: a lease taken by a batch stays invalid once its generation ended, even if the
 * next assignment gives the same partition back (the new generation's batch takes over).
 */
export interface PartitionLease {
  /** The generation it was taken in: leases of one generation share one read-ahead window. */
  readonly generation: number;
  /** True while the partition is still ours in the generation the lease was taken in. */
  valid(): boolean;
}

/** Kafka errors (by KafkaJS `type`) meaning our membership or generation ended. */
const MEMBERSHIP_LOST = new Set([
  'REBALANCE_IN_PROGRESS',
  'ILLEGAL_GENERATION',
  'UNKNOWN_MEMBER_ID',
  'NOT_COORDINATOR_FOR_GROUP',
  'FENCED_INSTANCE_ID',
]);

/** True when a heartbeat/commit error means the assignment is gone (a rebalance began). */
export function isMembershipLost(err: unknown): boolean {
  const type =
    typeof err === 'object' && err !== null ? (err as { type?: unknown }).type : undefined;
  return typeof type === 'string' && MEMBERSHIP_LOST.has(type);
}

export class PartitionOwnership {
  private generation = 0;
  private owned = new Set<string>();

  private keyOf(topic: string, partition: number): string {
    return `${topic}\u0000${partition}`;
  }

  /** A new assignment (consumer.events.GROUP_JOIN's memberAssignment). */
  assign(assignment: Record<string, number[]>): void {
    this.generation++;
    this.owned = new Set(
      Object.entries(assignment).flatMap(([topic, partitions]) =>
        partitions.map((p) => this.keyOf(topic, p)),
      ),
    );
  }

  /** Everything is gone: a rebalance began (eager protocol), the consumer stopped or crashed. */
  revokeAll(): void {
    this.generation++;
    this.owned = new Set();
  }

  owns(topic: string, partition: number): boolean {
    return this.owned.has(this.keyOf(topic, partition));
  }

  /** A lease for one batch of `topic`/`partition`, valid until the generation ends. */
  lease(topic: string, partition: number): PartitionLease {
    const generation = this.generation;
    return {
      generation,
      valid: () => generation === this.generation && this.owns(topic, partition),
    };
  }
}
