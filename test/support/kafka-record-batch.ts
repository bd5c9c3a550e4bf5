import { createRequire } from 'node:module';

/**
 * Builds and decodes record batches with KafkaJS's own protocol encoder and decoder, so unit
 * tests exercise the exact code a fetch runs (including the codecs and the header decoder
 * installed by createKafka). Headers are written by hand: KafkaJS's record encoder cannot
 * write a null header value, which Kafka and the Java client allow.
 */
const requireKafkajs = createRequire(require.resolve('kafkajs'));

interface Encoder {
  writeInt8(v: number): Encoder;
  writeVarInt(v: number): Encoder;
  writeVarLong(v: number): Encoder;
  writeVarIntString(v: string): Encoder;
  writeVarIntBytes(v: Buffer | string | null): Encoder;
  buffer: Buffer;
}
type EncoderClass = new () => Encoder;

export interface RawRecord {
  key: Buffer | string | null;
  value: Buffer | string | null;
  /** In wire order; repeats allowed. */
  headers: Array<[string, Buffer | string | null]>;
}

export interface DecodedRecord {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | null | Array<Buffer | null>>;
}

/** One record in the v2 format: [varint length][attributes, deltas, key, value, headers]. */
function encodeRecord(record: RawRecord, offsetDelta: number): Encoder {
  const Encoder = requireKafkajs('./src/protocol/encoder') as EncoderClass;
  const body = new Encoder()
    .writeInt8(0)
    .writeVarLong(0)
    .writeVarInt(offsetDelta)
    .writeVarIntBytes(record.key)
    .writeVarIntBytes(record.value)
    .writeVarInt(record.headers.length);
  for (const [name, value] of record.headers) body.writeVarIntString(name).writeVarIntBytes(value);
  return new Encoder().writeVarIntBytes(body.buffer);
}

/** A record batch as a broker returns it; `compression` is a KafkaJS CompressionTypes value. */
export async function encodeRecordBatch(records: RawRecord[], compression = 0): Promise<Buffer> {
  const { RecordBatch } = requireKafkajs('./src/protocol/recordBatch/v0') as {
    RecordBatch: (o: object) => Promise<Encoder>;
  };
  const batch = await RecordBatch({
    compression,
    lastOffsetDelta: records.length - 1,
    records: records.map((r, i) => encodeRecord(r, i)),
  });
  return batch.buffer;
}

/** Decodes a batch with KafkaJS's fetch-path decoder (loaded on first use, as a fetch would). */
export async function decodeRecordBatch(buffer: Buffer): Promise<DecodedRecord[]> {
  const Decoder = requireKafkajs('./src/protocol/decoder') as new (b: Buffer) => unknown;
  const decodeBatch = requireKafkajs('./src/protocol/recordBatch/v0/decoder') as (
    d: unknown,
  ) => Promise<{ records: DecodedRecord[] }>;
  return (await decodeBatch(new Decoder(buffer))).records;
}
