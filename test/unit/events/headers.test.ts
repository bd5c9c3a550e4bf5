import { strict as assert } from 'node:assert';
import type { IHeaders } from 'kafkajs';
import {
  firstHeaderText,
  headerBoundProblem,
  headerValues,
  MAX_HEADER_BYTES,
  MAX_HEADER_COUNT,
  sanitizeHeaders,
} from '../../../src/events/headers';

/** Headers as a decoder that fills a plain object may deliver them (nulls, odd names). */
function hostileHeaders(): IHeaders {
  const headers = { ok: Buffer.from('1'), text: 'two', nul: null, many: ['a', null, 'b'] };
  // An own `__proto__` property, as JSON.parse or defineProperty creates it.
  Object.defineProperty(headers, '__proto__', {
    value: Buffer.from('p'),
    enumerable: true,
    configurable: true,
    writable: true,
  });
  Object.defineProperty(headers, 'getter', {
    get: () => {
      throw new Error('must not be invoked');
    },
    enumerable: true,
  });
  return headers as unknown as IHeaders;
}

describe('bridge: headers read defensively', () => {
  it('keeps own string/Buffer values and names the rest', () => {
    const { headers, dropped, count } = sanitizeHeaders(hostileHeaders());
    assert.equal(Object.getPrototypeOf(headers), null);
    assert.deepEqual(Object.keys(headers), ['ok', 'text', 'many', '__proto__']);
    assert.deepEqual(headers.many, ['a', 'b']);
    assert.deepEqual(headers['__proto__'], Buffer.from('p'));
    assert.deepEqual(dropped, ['nul', 'getter']);
    assert.equal(count, 8, 'every value sent counts, null and dropped ones too');
  });

  it('never reads inherited names such as constructor, toString, valueOf', () => {
    const plain: IHeaders = {};
    for (const name of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__']) {
      assert.deepEqual(headerValues(plain, name), [], name);
      assert.equal(firstHeaderText(plain, name), undefined, name);
    }
    assert.deepEqual(sanitizeHeaders(plain).dropped, []);
  });

  it('reads a function or null value as absent', () => {
    const headers = { constructor: [Object, Buffer.from('x')], n: null } as unknown as IHeaders;
    assert.deepEqual(headerValues(headers, 'constructor'), [Buffer.from('x')]);
    assert.deepEqual(headerValues(headers, 'n'), []);
    assert.deepEqual(
      sanitizeHeaders({ f: (() => 1) as unknown as string }).dropped,
      ['f'],
      'a function value is dropped',
    );
  });

  it('survives headers that are not an object', () => {
    for (const h of [undefined, null, 'x' as unknown as IHeaders]) {
      assert.deepEqual(sanitizeHeaders(h).dropped, []);
      assert.deepEqual(headerValues(h, 'a'), []);
    }
  });

  it('counts null values of a repeated header against the bound (issue 23)', () => {
    // What the decoder delivers for one name repeated with null values (Kafka allows them).
    const nulls = { many: [...Array.from({ length: MAX_HEADER_COUNT }, () => null), 'x'] };
    const sanitized = sanitizeHeaders(nulls as unknown as IHeaders);
    assert.deepEqual(sanitized.headers.many, ['x']);
    assert.equal(sanitized.count, MAX_HEADER_COUNT + 1);
    assert.match(headerBoundProblem(sanitized)!, /101 headers, more than the limit of 100/);
    const allNull = { n: Array.from({ length: 500 }, () => null) };
    assert.match(
      headerBoundProblem(sanitizeHeaders(allNull as unknown as IHeaders))!,
      /500 headers/,
    );
    // Each null value carries its name's bytes too.
    assert.equal(sanitizeHeaders({ ab: [null, null] } as unknown as IHeaders).bytes, 4);
  });

  it('bounds the header count and bytes', () => {
    const many: IHeaders = {};
    for (let i = 0; i <= MAX_HEADER_COUNT; i++) many[`h${i}`] = 'v';
    assert.match(
      headerBoundProblem(sanitizeHeaders(many))!,
      /101 headers, more than the limit of 100/,
    );
    const big = { a: Buffer.alloc(MAX_HEADER_BYTES) };
    assert.match(
      headerBoundProblem(sanitizeHeaders(big))!,
      /65537 bytes, more than the limit of 65536/,
    );
    assert.equal(
      headerBoundProblem(sanitizeHeaders({ a: Buffer.alloc(MAX_HEADER_BYTES - 1) })),
      undefined,
    );
    const nulls = Object.fromEntries(
      Array.from({ length: MAX_HEADER_COUNT + 1 }, (_, i) => [`n${i}`, null]),
    ) as unknown as IHeaders;
    assert.ok(headerBoundProblem(sanitizeHeaders(nulls)), 'null-valued headers count too');
  });
});
