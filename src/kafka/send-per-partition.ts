// KafkaJS (2.2.4) can resolve a produce call that wrote only part of its messages. One call's
// messages are grouped by partition leader into one request per broker, and a retry of the call
// re-sends only to brokers that have not answered yet, keyed by broker rather than by partition.
// When a leader moves during the call (a broker restarting, a controlled shutdown), the
// partitions it led move to a broker that has already answered for its own partitions: the
// retry skips that broker, and the moved partitions' messages are never sent, while send()
// resolves. A call that carries one partition has one leader, so a retry after a leader move
// goes to the new leader. test/unit/kafka/send-per-partition.test.ts shows both.
import {
  Partitioners,
  type Admin,
  type Kafka,
  type Message,
  type PartitionMetadata,
  type Producer,
} from 'kafkajs';

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

/** The topic's partition count in the cluster's metadata: what keyed messages hash into. */
export async function readPartitionCount(
  admin: Pick<Admin, 'fetchTopicMetadata'>,
  topic: string,
): Promise<number> {
  const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
  const n = topics[0]?.partitions.length ?? 0;
  if (n < 1) throw new Error(`topic ${topic} has no partitions in the cluster's metadata`);
  return n;
}

/** readPartitionCount through an admin client of its own, for a caller that has none open. */
export async function fetchPartitionCount(
  kafka: Pick<Kafka, 'admin'>,
  topic: string,
): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await readPartitionCount(admin, topic);
  } finally {
    await admin.disconnect();
  }
}

/**
 * Publishes `messages` to `topic` in chunks of `chunk`, each chunk one produce call per
 * partition (sendPerPartition), for tools that write a whole stream at once: a leader move
 * during a call then cannot drop some partitions' messages while the call resolves.
 */
export async function publishPerPartition(
  kafka: Pick<Kafka, 'admin'>,
  producer: PartitionSender,
  { topic, messages, chunk = 500 }: { topic: string; messages: readonly Message[]; chunk?: number },
): Promise<void> {
  const partitions = await fetchPartitionCount(kafka, topic);
  for (let i = 0; i < messages.length; i += chunk) {
    await sendPerPartition(producer, { topic, messages: messages.slice(i, i + chunk), partitions });
  }
}
