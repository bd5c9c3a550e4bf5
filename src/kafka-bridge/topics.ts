import type { Kafka } from 'kafkajs';
import { dlqTopicOf } from '../config';

export interface EnsureTopicsOptions {
  /** Source topics; each gets its DLQ topic `<topic>.dlq` too. */
  topics: string[];
  /** Partition count for topics that do not exist yet. */
  partitions: number;
  /** Replication factor; 1 for the single local broker. Default: 1. */
  replicationFactor?: number;
}

/**
 * Creates the source topics and their DLQ topics when missing. Existing topics are left as
 * they are (a partition count is never changed behind an operator's back). Returns the names
 * that were created.
 */
export async function ensureTopics(kafka: Kafka, options: EnsureTopicsOptions): Promise<string[]> {
  const wanted = options.topics.flatMap((t) => [t, dlqTopicOf(t)]);
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = wanted.filter((t) => !existing.has(t));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((topic) => ({
          topic,
          numPartitions: options.partitions,
          replicationFactor: options.replicationFactor ?? 1,
        })),
      });
    }
    return missing;
  } finally {
    await admin.disconnect();
  }
}
