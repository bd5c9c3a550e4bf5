import { CompressionTypes, Partitioners, type Kafka } from 'kafkajs';
import { ensureTopics } from '../../src/kafka/topics';
import { CODEC_NAMES, type FuzzMessage } from './generate';
import { allowNullHeaderValues } from './null-header-encoder';

/** The fuzz topic accepts messages this large (the broker default is about 1 MiB). */
export const FUZZ_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const CODEC_TYPES = [
  CompressionTypes.None,
  CompressionTypes.GZIP,
  CompressionTypes.Snappy,
  CompressionTypes.LZ4,
  CompressionTypes.ZSTD,
];

/**
 * Creates the fuzz topic with a larger max.message.bytes (a producer whose topic allows huge
 * messages is exactly the case the bridge must survive), then its DLQ topic the way the
 * product creates it (ensureTopics), so the run tests the product's DLQ settings.
 */
export async function createFuzzTopic(
  kafka: Kafka,
  topic: string,
  partitions: number,
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({
      waitForLeaders: false,
      topics: [
        {
          topic,
          numPartitions: partitions,
          replicationFactor: 1,
          configEntries: [{ name: 'max.message.bytes', value: String(FUZZ_MAX_MESSAGE_BYTES) }],
        },
      ],
    });
  } finally {
    await admin.disconnect();
  }
  await ensureTopics(kafka, { topics: [topic], partitions });
}

/** Where each message landed and with which codec. */
export interface Placement {
  offset: number;
  codec: (typeof CODEC_NAMES)[number];
}

/**
 * Sends the stream in chunks of `chunkSize`, each compressed with the next codec in turn (a
 * compressed batch is one unit for the consumer: a codec it cannot read wedges the whole
 * batch); messages over 256 KiB go alone. Returns each message's offset and codec, from the
 * produce responses (partitions are explicit, and one send keeps a partition's order).
 */
export async function produceFuzzStream(
  kafka: Kafka,
  topic: string,
  messages: FuzzMessage[],
  chunkSize = 100,
): Promise<Map<number, Placement>> {
  allowNullHeaderValues();
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  const placements = new Map<number, Placement>();
  try {
    const chunks: FuzzMessage[][] = [];
    let current: FuzzMessage[] = [];
    for (const m of messages) {
      if ((m.value?.length ?? 0) > 256 * 1024) {
        chunks.push([m]);
        continue;
      }
      current.push(m);
      if (current.length >= chunkSize) {
        chunks.push(current);
        current = [];
      }
    }
    if (current.length > 0) chunks.push(current);
    let codecIndex = 0;
    for (const chunk of chunks) {
      const codec = codecIndex++ % CODEC_TYPES.length;
      const results = await producer.send({
        topic,
        acks: -1,
        compression: CODEC_TYPES[codec],
        messages: chunk.map((m) => ({
          key: m.key,
          value: m.value,
          headers: m.headers as never,
          partition: m.partition,
        })),
      });
      const base = new Map(results.map((r) => [r.partition, Number(r.baseOffset)]));
      const next = new Map<number, number>();
      for (const m of chunk) {
        const i = next.get(m.partition) ?? 0;
        next.set(m.partition, i + 1);
        placements.set(m.seq, { offset: base.get(m.partition)! + i, codec: CODEC_NAMES[codec]! });
      }
    }
  } finally {
    await producer.disconnect();
  }
  return placements;
}
