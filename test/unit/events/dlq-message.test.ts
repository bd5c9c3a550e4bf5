import { strict as assert } from 'node:assert';
import type { IHeaders } from 'kafkajs';
import {
  buildDlqMessage,
  DLQ_HEADER,
  MAX_DLQ_ERROR_LENGTH,
  readDlqHeaders,
} from '../../../src/events/dlq-message';
import { MAX_HEADER_BYTES, MAX_HEADER_COUNT } from '../../../src/events/headers';
import { headerMessage } from './fixtures';

const failedAt = new Date('2026-11-22T04:00:00.000Z');

describe('bridge: buildDlqMessage', () => {
  it('keeps key, value and headers and adds the dlq-* headers', () => {
    const message = headerMessage();
    const record = buildDlqMessage({
      message,
      topic: 'orders',
      partition: 3,
      offset: '42',
      reason: 'validation-failed',
      error: 'data.email: must be an email address',
      failedAt,
    });
    assert.equal(record.topic, 'orders.dlq');
    assert.equal(record.message.key, message.key);
    assert.equal(record.message.value, message.value);
    for (const [name, value] of Object.entries(message.headers!)) {
      assert.equal(record.message.headers[name], value, `header ${name} kept`);
    }
    assert.equal(record.message.headers['dlq-reason'], 'validation-failed');
    assert.equal(record.message.headers['dlq-error'], 'data.email: must be an email address');
    assert.equal(record.message.headers['dlq-source-topic'], 'orders');
    assert.equal(record.message.headers['dlq-source-partition'], '3');
    assert.equal(record.message.headers['dlq-source-offset'], '42');
    assert.equal(record.message.headers['dlq-first-failed-at'], '2026-11-22T04:00:00.000Z');
    assert.equal(record.message.headers['dlq-failure-count'], '1');
  });

  it('works for a message without headers, key or value', () => {
    const record = buildDlqMessage({
      message: { key: null, value: null },
      topic: 't',
      partition: 0,
      offset: '0',
      reason: 'unparseable',
      error: 'empty',
      failedAt,
    });
    assert.equal(record.message.key, null);
    assert.equal(record.message.value, null);
    assert.equal(record.message.headers['dlq-reason'], 'unparseable');
  });

  it('keeps the first failure time of a replayed message and replaces the rest', () => {
    const replayed = {
      ...headerMessage(),
      headers: {
        ...headerMessage().headers,
        'dlq-reason': Buffer.from('stale-version'),
        'dlq-error': Buffer.from('old'),
        'dlq-source-offset': Buffer.from('7'),
        'dlq-first-failed-at': Buffer.from('2026-11-01T00:00:00.000Z'),
        'dlq-failure-count': Buffer.from('2'),
      },
    };
    const record = buildDlqMessage({
      message: replayed,
      topic: 'orders',
      partition: 1,
      offset: '99',
      reason: 'identity-conflict',
      error: 'new',
      failedAt,
    });
    const h = record.message.headers;
    assert.equal(h['dlq-first-failed-at'], '2026-11-01T00:00:00.000Z');
    assert.equal(h['dlq-reason'], 'identity-conflict');
    assert.equal(h['dlq-error'], 'new');
    assert.equal(h['dlq-source-offset'], '99');
    assert.equal(h['dlq-failure-count'], '3');
  });

  it('truncates a very long error', () => {
    const record = buildDlqMessage({
      message: headerMessage(),
      topic: 'orders',
      partition: 0,
      offset: '1',
      reason: 'validation-failed',
      error: 'x'.repeat(10_000),
      failedAt,
    });
    assert.equal((record.message.headers['dlq-error'] as string).length, MAX_DLQ_ERROR_LENGTH);
  });

  it('does not mutate the original headers', () => {
    const message = headerMessage();
    const before = Object.keys(message.headers!).sort();
    buildDlqMessage({
      message,
      topic: 'o',
      partition: 0,
      offset: '1',
      reason: 'oversized',
      error: 'e',
      failedAt,
    });
    assert.deepEqual(Object.keys(message.headers!).sort(), before);
  });

  describe('hostile headers', () => {
    const build = (headers: IHeaders) =>
      buildDlqMessage({
        message: { key: null, value: Buffer.from('{}'), headers },
        topic: 'orders',
        partition: 0,
        offset: '5',
        reason: 'unparseable',
        error: 'e',
        failedAt,
      }).message.headers;

    it('copies only own string/Buffer values and names the dropped ones', () => {
      const h = build({
        kept: Buffer.from('k'),
        nul: null,
        constructor: [Object, Buffer.from('x')],
        fn: (() => 1) as unknown as string,
      } as unknown as IHeaders);
      assert.deepEqual(h.kept, Buffer.from('k'));
      assert.equal(Object.hasOwn(h, 'nul'), false);
      assert.equal(Object.hasOwn(h, 'fn'), false);
      assert.deepEqual(h.constructor, [Buffer.from('x')], 'only the usable element');
      assert.equal(h[DLQ_HEADER.droppedHeaders], 'nul,fn');
      for (const v of Object.values(h)) {
        for (const e of Array.isArray(v) ? v : [v]) {
          assert.ok(typeof e === 'string' || Buffer.isBuffer(e), 'every value is encodable');
        }
      }
    });

    it('never inherits or copies toString/valueOf, and a __proto__ header stays a header', () => {
      const headers: IHeaders = { a: 'b' };
      Object.defineProperty(headers, '__proto__', {
        value: Buffer.from('{"polluted":1}'),
        enumerable: true,
      });
      const h = build(headers);
      assert.equal(Object.getPrototypeOf(h), null);
      assert.deepEqual(
        Object.getOwnPropertyDescriptor(h, '__proto__')?.value,
        Buffer.from('{"polluted":1}'),
      );
      assert.equal(Object.hasOwn(h, 'toString'), false);
      assert.equal(Object.hasOwn(h, 'valueOf'), false);
      assert.equal(h[DLQ_HEADER.droppedHeaders], undefined, 'nothing dropped');
    });

    it('treats null or garbage dlq-failure-count / dlq-first-failed-at as absent', () => {
      for (const [count, first] of [
        [null, null],
        [Buffer.from('abc'), Buffer.from('yesterday')],
        ['-3', '2026-13-45T99:99:99Z'],
        ['1e3', ''],
        [[null], [null]],
      ] as const) {
        const h = build({
          'dlq-failure-count': count,
          'dlq-first-failed-at': first,
        } as unknown as IHeaders);
        assert.equal(h['dlq-failure-count'], '1', JSON.stringify(count));
        assert.equal(h['dlq-first-failed-at'], failedAt.toISOString(), JSON.stringify(first));
      }
    });

    it('keeps at most the header bounds and names the rest, so the DLQ write cannot be refused for them', () => {
      const many: IHeaders = {};
      for (let i = 0; i < 5000; i++) many[`h${i}`] = Buffer.from('v');
      const h = build(many);
      const copied = Object.keys(h).filter((n) => !n.startsWith('dlq-'));
      assert.equal(copied.length, MAX_HEADER_COUNT);
      assert.deepEqual(copied.slice(0, 2), ['h0', 'h1'], 'the first N, in order');
      const dropped = h[DLQ_HEADER.droppedHeaders] as string;
      assert.match(dropped, /^h100,h101,/);
      assert.match(dropped, /… \(\+\d+ more\)$/);
      assert.ok(dropped.length <= 2000);

      const big = build({ a: Buffer.alloc(40_000), b: Buffer.alloc(40_000), c: 'small' });
      assert.ok(Buffer.isBuffer(big.a));
      assert.equal(big.b, undefined);
      assert.equal(big.c, 'small');
      assert.equal(big[DLQ_HEADER.droppedHeaders], 'b');
      const bytes = Object.entries(big)
        .filter(([n]) => !n.startsWith('dlq-'))
        .reduce((s, [n, v]) => s + n.length + Buffer.byteLength(v as Buffer | string), 0);
      assert.ok(bytes <= MAX_HEADER_BYTES);
    });
  });
});

describe('events: readDlqHeaders', () => {
  it('reads back what buildDlqMessage wrote', () => {
    const record = buildDlqMessage({
      message: headerMessage(),
      topic: 'orders',
      partition: 3,
      offset: '42',
      reason: 'validation-failed',
      error: 'data.email: must be an email address',
      failedAt,
    });
    // As a consumer sees them: every header value a Buffer.
    const consumed: IHeaders = Object.fromEntries(
      Object.entries(record.message.headers).map(([k, v]) => [
        k,
        Buffer.from(String(Array.isArray(v) ? v[0] : v)),
      ]),
    );
    assert.deepEqual(readDlqHeaders(consumed), {
      reason: 'validation-failed',
      error: 'data.email: must be an email address',
      sourceTopic: 'orders',
      sourcePartition: '3',
      sourceOffset: '42',
      firstFailedAt: '2026-11-22T04:00:00.000Z',
      failureCount: '1',
    });
  });

  it('treats absent, null and inherited names as absent', () => {
    const headers = { [DLQ_HEADER.reason]: null } as unknown as IHeaders;
    const read = readDlqHeaders(headers);
    assert.equal(read.reason, undefined);
    assert.equal(read.sourceTopic, undefined);
    assert.equal(readDlqHeaders(undefined).failureCount, undefined);
  });
});
