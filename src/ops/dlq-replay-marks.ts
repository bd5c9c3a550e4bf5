import type { Kafka } from 'kafkajs';

/**
 * What `dlq replay` has already replayed, kept in Kafka itself: a consumer group per reason
 * filter (`<KAFKA_GROUP_ID>.dlq-replayed.<reason>`, `*` for an unfiltered replay) whose
 * committed offset per DLQ partition is the end of the last replayed snapshot. A replay
 * offers every matching entry below the snapshot's end, so "offset < committed" is exactly
 * "already handled". An entry counts as replayed when either its reason's group or the
 * unfiltered group has passed it. Nothing consumes with these groups; they only hold offsets.
 */
export function replayGroupId(bridgeGroupId: string, reason: string | undefined): string {
  return `${bridgeGroupId}.dlq-replayed.${reason ?? '*'}`;
}

/** Committed offsets of `groupId` on `topic`, per partition (partitions never marked absent). */
async function committed(
  kafka: Kafka,
  groupId: string,
  topic: string,
): Promise<Map<number, bigint>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [entry] = await admin.fetchOffsets({ groupId, topics: [topic] });
    const out = new Map<number, bigint>();
    for (const p of entry?.partitions ?? []) {
      if (BigInt(p.offset) >= 0n) out.set(p.partition, BigInt(p.offset));
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

/** For each reason (and `undefined` = unfiltered), the replayed marks of one DLQ topic. */
export async function readReplayMarks(
  kafka: Kafka,
  bridgeGroupId: string,
  dlqTopic: string,
  reasons: Iterable<string | undefined>,
): Promise<(reason: string | undefined, partition: number) => bigint> {
  const byReason = new Map<string, Map<number, bigint>>();
  for (const reason of new Set([undefined, ...reasons])) {
    byReason.set(
      reason ?? '*',
      await committed(kafka, replayGroupId(bridgeGroupId, reason), dlqTopic),
    );
  }
  return (reason, partition) => {
    const all = byReason.get('*')?.get(partition) ?? 0n;
    const own = reason === undefined ? 0n : (byReason.get(reason)?.get(partition) ?? 0n);
    return all > own ? all : own;
  };
}

/** Marks everything below `ends` of `dlqTopic` as replayed for this reason filter. */
export async function markReplayed(
  kafka: Kafka,
  bridgeGroupId: string,
  reason: string | undefined,
  dlqTopic: string,
  ends: ReadonlyMap<number, bigint>,
): Promise<void> {
  if (ends.size === 0) return;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.setOffsets({
      groupId: replayGroupId(bridgeGroupId, reason),
      topic: dlqTopic,
      partitions: [...ends].map(([partition, end]) => ({ partition, offset: end.toString() })),
    });
  } finally {
    await admin.disconnect();
  }
}
