import { strict as assert } from 'node:assert';
import { CompressionTypes } from 'kafkajs';
import { registerCodecs } from '../../../src/kafka/codecs';
import { installHeaderDecoderPatch } from '../../../src/kafka/kafka-decoder-patch';
import {
  decodeRecordBatch,
  encodeRecordBatch,
  type RawRecord,
} from '../../support/kafka-record-batch';

async function decodeOne(record: RawRecord, compression = 0) {
  const [decoded] = await decodeRecordBatch(await encodeRecordBatch([record], compression));
  return decoded!;
}

describe('bridge: KafkaJS record header decoding', () => {
  before(() => {
    registerCodecs();
    installHeaderDecoderPatch();
    installHeaderDecoderPatch(); // idempotent
  });

  it('decodes prototype-named headers as plain own values', async () => {
    const { headers } = await decodeOne({
      key: 'k',
      value: 'v',
      headers: [
        ['constructor', 'c'],
        ['__proto__', 'p'],
        ['toString', 't'],
        ['valueOf', 'v'],
        ['hasOwnProperty', 'h'],
      ],
    });
    assert.deepEqual(Object.keys(headers), [
      'constructor',
      '__proto__',
      'toString',
      'valueOf',
      'hasOwnProperty',
    ]);
    for (const [name, text] of [
      ['constructor', 'c'],
      ['__proto__', 'p'],
      ['toString', 't'],
      ['valueOf', 'v'],
      ['hasOwnProperty', 'h'],
    ] as const) {
      assert.ok(Object.hasOwn(headers, name), name);
      const value = headers[name];
      assert.ok(Buffer.isBuffer(value), `${name}: ${String(value)}`);
      assert.equal(value.toString(), text);
    }
    assert.equal(Object.getPrototypeOf(headers), null);
  });

  it('inherits nothing: an absent header reads as undefined whatever its name', async () => {
    const { headers } = await decodeOne({ key: 'k', value: 'v', headers: [['event-id', 'e']] });
    assert.equal(headers['constructor'], undefined);
    assert.equal(headers['toString'], undefined);
    assert.equal(headers['__proto__'], undefined);
  });

  it('keeps null header values as null, single and repeated', async () => {
    const { headers } = await decodeOne({
      key: null,
      value: null,
      headers: [
        ['a', null],
        ['b', 'x'],
        ['b', null],
        ['b', 'y'],
        ['constructor', null],
      ],
    });
    assert.equal(headers['a'], null);
    const b = headers['b'];
    assert.ok(Array.isArray(b));
    assert.deepEqual(
      b.map((v) => (v === null ? null : v.toString())),
      ['x', null, 'y'],
    );
    assert.ok(Object.hasOwn(headers, 'constructor'));
    assert.equal(headers['constructor'], null);
  });

  it('collects a repeated prototype-named header into an array of its values', async () => {
    const { headers } = await decodeOne({
      key: 'k',
      value: 'v',
      headers: [
        ['constructor', '1'],
        ['constructor', '2'],
      ],
    });
    const values = headers['constructor'];
    assert.ok(Array.isArray(values));
    assert.deepEqual(values.map(String), ['1', '2']);
  });

  it('decodes 20,000 headers (distinct and repeated) in well under a second', async () => {
    const many: Array<[string, string]> = [];
    for (let i = 0; i < 10_000; i++) many.push([`h-${i}`, `v${i}`]);
    for (let i = 0; i < 10_000; i++) many.push(['same', `r${i}`]);
    const buffer = await encodeRecordBatch([{ key: 'k', value: 'v', headers: many }]);
    const started = performance.now();
    const [record] = await decodeRecordBatch(buffer);
    const elapsedMs = performance.now() - started;
    // A correctness guard against the quadratic fold (≈ minutes at this size), not a benchmark.
    assert.ok(elapsedMs < 1_000, `20,000 headers took ${elapsedMs.toFixed(0)} ms`);
    const { headers } = record!;
    assert.equal(Object.keys(headers).length, 10_001);
    assert.equal(String(headers['h-9999']), 'v9999');
    const same = headers['same'];
    assert.ok(Array.isArray(same));
    assert.equal(same.length, 10_000);
    assert.equal(String(same[9_999]), 'r9999');
  });

  it('decodes the same headers inside a compressed (zstd) batch', async () => {
    const { headers, offset } = await decodeOne(
      {
        key: 'k',
        value: 'v',
        headers: [
          ['constructor', 'c'],
          ['n', null],
        ],
      },
      CompressionTypes.ZSTD,
    );
    assert.equal(offset, '0');
    assert.equal(String(headers['constructor']), 'c');
    assert.equal(headers['n'], null);
  });
});
