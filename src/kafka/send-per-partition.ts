// KafkaJS (2.2.4) can resolve a produce call that wrote only part of its messages. One call's
// messages are grouped by partition leader into one request per broker, and a retry of the call
// re-sends only to brokers that have not answered yet, keyed by broker rather than by partition.
// When a leader moves during the call (a broker restarting, a controlled shutdown), the
// partitions it led move to a broker that has already answered for its own partitions: the
// retry skips that broker, and the moved partitions' messages are never sent, while send()
// resolves. A call that carries one partition has one leader, so a retry after a leader move
// goes to the new leader. test/unit/kafka/send-per-partition.test.ts shows both.
import { Partitioners, type Message, type PartitionMetadata, type Producer } from 'kafkajs';

/** What sendPerPartition needs of a producer (a fake in unit tests). */
export type PartitionSender = Pick<Producer, 'send'>;

/** The produce call's settings besides the messages. */
export interface PerPartitionSend {
  topic: string;
  messages: Message[];
  /** The topic's partition count (admin.fetchTopicMetadata), which keyed messages hash into. */
  partitions: number;
  /** Default -1 (all in-sync replicas). */
  acks?: number;
  /** Produce request timeout in ms. Default: KafkaJS's (30 s). */
  timeout?: number;
}

/**
 * The partition of each message, as KafkaJS's default partitioner (Java-compatible murmur2 on
 * the key) would choose it for a topic with `partitions` partitions: the same partition a plain
 * send() would use, so a key keeps its order. An explicit `message.partition` is kept; a message
 * without a key goes to the partitioner's round robin.
 */
export function groupByPartition(
  topic: string,
  messages: readonly Message[],
  partitions: number,
): Map<number, Message[]> {
  if (!Number.isInteger(partitions) || partitions < 1)
    throw new RangeError(`partitions must be a positive integer, not ${partitions}`);
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata: PartitionMetadata[] = Array.from({ length: partitions }, (_, id) => ({
    partitionId: id,
    leader: 0,
    replicas: [0],
    isr: [0],
    offlineReplicas: [],
    partitionErrorCode: 0,
  }));
  const groups = new Map<number, Message[]>();
  for (const message of messages) {
    const partition = partitioner({ topic, partitionMetadata, message });
    const group = groups.get(partition);
    if (group) group.push({ ...message, partition });
    else groups.set(partition, [{ ...message, partition }]);
  }
  return groups;
}

/**
 * Sends `messages` with one produce call per partition, all at once, and resolves once every
 * partition's call has: a message is then written whatever leader moved meanwhile. Rejects
 * if any partition's call does (its messages may or may not be written; the others' are), so a
 * caller that sends again writes some messages twice, as any at-least-once producer may.
 */
export async function sendPerPartition(
  producer: PartitionSender,
  options: PerPartitionSend,
): Promise<void> {
  const { topic, acks = -1, timeout } = options;
  const groups = groupByPartition(topic, options.messages, options.partitions);
  await Promise.all(
    [...groups.values()].map((messages) =>
      producer.send({ topic, acks, messages, ...(timeout !== undefined ? { timeout } : {}) }),
    ),
  );
}
