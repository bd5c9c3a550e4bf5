import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import * as zstd from '@mongodb-js/zstd';
import * as lz4 from 'lz4-napi';
import * as snappy from 'snappy';

/**
 * The compression codecs KafkaJS lacks. KafkaJS ships only gzip and throws
 * `KafkaJSNotImplemented` while decoding a fetch that holds a snappy, lz4 or zstd batch, which
 * stops the whole partition (the consumer restarts into the same batch). Java and librdkafka
 * producers commonly use all three, so every client of ours reads every codec.
 *
 * The native parts come from npm as per-platform optional dependencies (napi-rs), so `npm ci`
 * fetches nothing from outside the registry.
 */

/** What KafkaJS calls with a batch to compress: an Encoder whose `buffer` is the record bytes. */
interface Encoder {
  buffer: Buffer;
}

export interface Codec {
  compress(encoder: Encoder): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

/** Codec names as Kafka's `compression.type` spells them. */
export type CodecName = 'gzip' | 'snappy' | 'lz4' | 'zstd';

/**
 * snappy-java's "xerial" stream header: 0x82 'SNAPPY' 0x00, then version and minimum
 * compatible version (int32 BE each), then blocks of [int32 BE length][raw snappy block]. The
 * Java client (and so Kafka's console producer) writes snappy batches in this framing;
 * librdkafka and KafkaJS codecs write one raw snappy block. The reader accepts both.
 */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_BYTES = 16;

/** True when `buffer` starts with snappy-java's stream header. */
export function isXerialFramed(buffer: Buffer): boolean {
  return (
    buffer.length >= XERIAL_HEADER_BYTES &&
    buffer.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC)
  );
}

/** Decodes a xerial-framed snappy stream (see XERIAL_MAGIC) block by block. */
async function uncompressXerial(buffer: Buffer): Promise<Buffer> {
  const blocks: Buffer[] = [];
  let offset = XERIAL_HEADER_BYTES;
  while (offset < buffer.length) {
    if (offset + 4 > buffer.length) throw new Error('truncated xerial snappy block length');
    const size = buffer.readInt32BE(offset);
    offset += 4;
    if (size < 0 || offset + size > buffer.length) {
      throw new Error(`xerial snappy block of ${size} bytes runs past the end of the batch`);
    }
    blocks.push(await uncompressSnappyBlock(buffer.subarray(offset, offset + size)));
    offset += size;
  }
  return Buffer.concat(blocks);
}

async function uncompressSnappyBlock(block: Buffer): Promise<Buffer> {
  const out = await snappy.uncompress(block);
  return typeof out === 'string' ? Buffer.from(out) : out;
}

/** Builds a xerial-framed snappy stream the way snappy-java does (for tests and self-test). */
export function compressXerialSnappy(data: Buffer, blockSize = 32 * 1024): Buffer {
  const header = Buffer.alloc(XERIAL_HEADER_BYTES);
  XERIAL_MAGIC.copy(header);
  header.writeInt32BE(1, 8);
  header.writeInt32BE(1, 12);
  const parts: Buffer[] = [header];
  for (let start = 0; start < data.length; start += blockSize) {
    const block = snappy.compressSync(data.subarray(start, start + blockSize));
    const length = Buffer.alloc(4);
    length.writeInt32BE(block.length);
    parts.push(length, block);
  }
  return Buffer.concat(parts);
}

const snappyCodec: Codec = {
  compress: async (encoder) => snappy.compress(encoder.buffer),
  decompress: async (buffer) =>
    isXerialFramed(buffer) ? uncompressXerial(buffer) : uncompressSnappyBlock(buffer),
};

// Kafka's lz4 is the standard LZ4 frame format (KIP-57), independent blocks.
const lz4Codec: Codec = {
  compress: async (encoder) => lz4.compressFrame(encoder.buffer),
  decompress: async (buffer) => lz4.decompressFrame(buffer),
};

// Level 3 is zstd's (and Kafka's) default.
const zstdCodec: Codec = {
  compress: async (encoder) => zstd.compress(encoder.buffer, 3),
  decompress: async (buffer) => zstd.decompress(buffer),
};

const EXTRA_CODECS: Array<[number, Codec]> = [
  [CompressionTypes.Snappy, snappyCodec],
  [CompressionTypes.LZ4, lz4Codec],
  [CompressionTypes.ZSTD, zstdCodec],
];

/**
 * Registers snappy, lz4 and zstd with KafkaJS (process-wide: KafkaJS keeps one codec table).
 * Idempotent; createKafka calls it, so every client built through it reads every codec.
 */
export function registerCodecs(): void {
  const table = CompressionCodecs as unknown as Record<number, () => Codec>;
  for (const [type, codec] of EXTRA_CODECS) table[type] = () => codec;
}

/** A codec that failed its round trip. */
export class CodecSelfTestError extends Error {
  constructor(
    readonly codec: CodecName,
    readonly causeMessage: string,
  ) {
    super(`compression codec ${codec} is broken: ${causeMessage}`);
    this.name = 'CodecSelfTestError';
  }
}

const CODEC_TYPES: Record<CodecName, number> = {
  gzip: CompressionTypes.GZIP,
  snappy: CompressionTypes.Snappy,
  lz4: CompressionTypes.LZ4,
  zstd: CompressionTypes.ZSTD,
};

/** A codec by KafkaJS compression type, as registered (registering the extra ones first). */
function registeredCodec(type: number): Codec {
  registerCodecs();
  return (CompressionCodecs as unknown as Record<number, () => Codec>)[type]!();
}

/**
 * Round-trips a sample through every codec as registered with KafkaJS (and a Java-style
 * xerial snappy stream), so a missing native binary shows at start, naming the codec, not
 * on the first compressed batch. Throws CodecSelfTestError for the first broken codec.
 * `lookup` is for tests.
 */
export async function checkCodecs(
  lookup: (type: number) => Codec = registeredCodec,
): Promise<CodecName[]> {
  const sample = Buffer.from(`onceflow codec self-test ${'0123456789abcdef'.repeat(64)}`);
  const checked: CodecName[] = [];
  for (const [name, type] of Object.entries(CODEC_TYPES) as Array<[CodecName, number]>) {
    try {
      const codec = lookup(type);
      const back = await codec.decompress(await codec.compress({ buffer: sample }));
      if (!back.equals(sample)) throw new Error('round trip returned different bytes');
      if (name === 'snappy') {
        const java = await codec.decompress(compressXerialSnappy(sample, 100));
        if (!java.equals(sample)) throw new Error('xerial-framed stream decoded wrongly');
      }
    } catch (err) {
      throw new CodecSelfTestError(name, (err as Error).message);
    }
    checked.push(name);
  }
  return checked;
}
