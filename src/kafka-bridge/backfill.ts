import type { Admin } from 'kafkajs';
import type { Config } from '../config';

/**
 * A backfill's consumer group: its own, so re-reading a topic from an earlier offset never
 * moves the live bridge's offsets (and the two run side by side).
 */
export function backfillGroupOf(groupId: string): string {
  return `${groupId}-backfill`;
}

/** The group a bridge consumes in: KAFKA_GROUP_ID, or its backfill group in BRIDGE_MODE=backfill. */
export function bridgeGroupOf(config: Pick<Config, 'kafka' | 'bridge'>): string {
  return config.bridge.mode === 'backfill'
    ? backfillGroupOf(config.kafka.groupId)
    : config.kafka.groupId;
}

/**
 * Sets where a backfill starts (BRIDGE_BACKFILL_FROM): each partition of `topics` at its first
 * offset written at or after `fromMs` (its end when none is), for a group that has no offsets
 * of that topic yet; a group that has some goes on from them (a restarted backfill). Returns
 * the topics it set. Runs before the consumer joins: Kafka refuses to set the offsets of a
 * group with members.
 */
export async function seekBackfillStart(
  admin: Admin,
  groupId: string,
  topics: readonly string[],
  fromMs: number,
): Promise<string[]> {
  const set: string[] = [];
  const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
  for (const { topic, partitions } of committed) {
    if (partitions.some((p) => p.offset !== '-1')) continue;
    const offsets = await admin.fetchTopicOffsetsByTimestamp(topic, fromMs);
    await admin.setOffsets({
      groupId,
      topic,
      partitions: offsets.map((p) => ({ partition: p.partition, offset: p.offset })),
    });
    set.push(topic);
  }
  return set;
}
