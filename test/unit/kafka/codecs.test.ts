import { strict as assert } from 'node:assert';
import { CompressionCodecs, CompressionTypes } from 'kafkajs';
import {
  checkCodecs,
  CodecSelfTestError,
  compressXerialSnappy,
  isXerialFramed,
  registerCodecs,
  type Codec,
} from '../../../src/kafka/codecs';
import { installHeaderDecoderPatch } from '../../../src/kafka/kafka-decoder-patch';
import { decodeRecordBatch, encodeRecordBatch } from '../../support/kafka-record-batch';

const table = CompressionCodecs as unknown as Record<number, () => Codec>;
const CODECS = [
  ['gzip', CompressionTypes.GZIP],
  ['snappy', CompressionTypes.Snappy],
  ['lz4', CompressionTypes.LZ4],
  ['zstd', CompressionTypes.ZSTD],
] as const;

// Compressible and incompressible parts, larger than one xerial block (32 KiB).
const SAMPLE = Buffer.concat([
  Buffer.from('{"orderId":"order-1"}'.repeat(3_000)),
  Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7919) % 251)),
]);

describe('bridge: compression codecs', () => {
  before(() => {
    registerCodecs();
    registerCodecs(); // idempotent
    installHeaderDecoderPatch();
  });

  for (const [name, type] of CODECS) {
    it(`${name} round-trips through the KafkaJS codec table`, async () => {
      const codec = table[type]!();
      const compressed = await codec.compress({ buffer: SAMPLE });
      assert.ok(compressed.length < SAMPLE.length, `${name} compressed nothing`);
      assert.ok((await codec.decompress(compressed)).equals(SAMPLE));
    });

    it(`${name}: a record batch encoded and decoded by KafkaJS keeps every record`, async () => {
      const records = [
        {
          key: 'order-1',
          value: SAMPLE,
          headers: [['event-id', 'e-1']] as Array<[string, string]>,
        },
        { key: null, value: 'tiny', headers: [] },
      ];
      const decoded = await decodeRecordBatch(await encodeRecordBatch(records, type));
      assert.equal(decoded.length, 2);
      assert.ok(decoded[0]!.value!.equals(SAMPLE));
      assert.equal(decoded[0]!.key!.toString(), 'order-1');
      assert.equal(String(decoded[0]!.headers['event-id']), 'e-1');
      assert.equal(decoded[1]!.key, null);
      assert.equal(decoded[1]!.value!.toString(), 'tiny');
    });
  }

  it('snappy reads a Java (snappy-java, xerial-framed) stream of several blocks', async () => {
    const java = compressXerialSnappy(SAMPLE, 32 * 1024);
    assert.ok(isXerialFramed(java));
    // Header: 0x82 "SNAPPY" 0x00, version 1, compatible version 1; then [int32 length][block].
    assert.deepEqual([...java.subarray(0, 8)], [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
    assert.equal(java.readInt32BE(8), 1);
    assert.equal(java.readInt32BE(12), 1);
    const back = await table[CompressionTypes.Snappy]!().decompress(java);
    assert.ok(back.equals(SAMPLE));
  });

  it('snappy rejects a xerial stream whose block runs past the end', async () => {
    const java = compressXerialSnappy(SAMPLE);
    await assert.rejects(
      table[CompressionTypes.Snappy]!().decompress(java.subarray(0, java.length - 10)),
      /runs past the end/,
    );
  });

  it('the self-test passes every codec and names a broken one', async () => {
    assert.deepEqual(await checkCodecs(), ['gzip', 'snappy', 'lz4', 'zstd']);
    const broken: Codec = {
      compress: async () => Buffer.from('x'),
      decompress: async () => {
        throw new Error('native binding missing');
      },
    };
    await assert.rejects(
      checkCodecs((type) => (type === CompressionTypes.LZ4 ? broken : table[type]!())),
      (err: unknown) =>
        err instanceof CodecSelfTestError &&
        err.codec === 'lz4' &&
        /lz4 is broken: native binding missing/.test(err.message),
    );
  });
});
