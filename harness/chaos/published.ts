import { randomBytes } from 'node:crypto';
import type { Kafka, Message } from 'kafkajs';
import { readTopicsToEnd } from '../../src/kafka/topic-reader';

/** A record as the topic gives it back: its key and value bytes. */
function identityOf(key: Buffer | string | null | undefined, value: Buffer | string | null) {
  const bytes = (b: Buffer | string | null | undefined) =>
    b === null || b === undefined ? '-' : Buffer.from(b).toString('base64');
  return `${bytes(key)}:${bytes(value)}`;
}

/**
 * How many of the records the run published are not on the topic. The publisher's sends all
 * resolved, so every record should be there at least once; one that is not can never start
 * its workflow, and the run must say so rather than wait for it. A producer whose send()
 * resolves without writing every message (KafkaJS across a leader move:
 * src/kafka/send-per-partition.ts) is what this catches. Compared by key and value bytes.
 */
export async function countMissingOnTopic(
  kafka: Kafka,
  topic: string,
  records: readonly Message[],
  timeoutMs = 120_000,
): Promise<number> {
  const onTopic = new Set<string>();
  await readTopicsToEnd(
    kafka,
    [topic],
    (_topic, _partition, message) => onTopic.add(identityOf(message.key, message.value)),
    { groupId: `onceflow-chaos-published-${randomBytes(4).toString('hex')}`, timeoutMs },
  );
  return records.filter((r) => !onTopic.has(identityOf(r.key, r.value))).length;
}
