import { strict as assert } from 'node:assert';
import type { IHeaders } from 'kafkajs';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../../../src/events/json-value';
import { parseEnvelope } from '../../../src/events/envelope';
import { bodyMessage, EVENT_ID, headerMessage, orderPlacedData } from './fixtures';
import { options, poisonOf } from './envelope-helpers';

describe('bridge: parseEnvelope', () => {
  it('reads the identity from headers and the whole value as data', () => {
    const result = parseEnvelope(headerMessage(), options);
    assert.ok(result.ok);
    assert.deepEqual(result.envelope, {
      eventId: EVENT_ID,
      eventType: 'OrderPlaced',
      aggregateId: 'order-123',
      aggregateVersion: 1,
      data: orderPlacedData(),
      contentType: 'application/json',
    });
  });

  it('falls back to body fields when there are no headers', () => {
    const result = parseEnvelope(bodyMessage(), options);
    assert.ok(result.ok);
    assert.equal(result.envelope.eventId, EVENT_ID);
    assert.equal(result.envelope.eventType, 'OrderPlaced');
    assert.equal(result.envelope.aggregateVersion, 1);
    assert.deepEqual(result.envelope.data, orderPlacedData());
    assert.equal(result.envelope.contentType, undefined);
  });

  it('combines headers and body fields, headers first', () => {
    const message = bodyMessage({ eventId: undefined, aggregateVersion: undefined });
    message.headers = { 'event-id': 'from-header', 'aggregate-version': '7' };
    const result = parseEnvelope(message, options);
    assert.ok(result.ok);
    assert.equal(result.envelope.eventId, 'from-header');
    assert.equal(result.envelope.aggregateVersion, 7);
    assert.equal(result.envelope.aggregateId, 'order-123', 'aggregateId from the body');
  });

  it('accepts agreeing header and body values, string and Buffer headers, repeated headers', () => {
    const message = bodyMessage();
    message.headers = {
      'event-id': EVENT_ID,
      'event-type': Buffer.from('OrderPlaced'),
      'aggregate-id': [Buffer.from('order-123'), 'order-123'],
      'aggregate-version': '1',
    };
    assert.ok(parseEnvelope(message, options).ok);
  });

  it('has no version when neither header nor body carries one', () => {
    const result = parseEnvelope(
      headerMessage(undefined, { 'aggregate-version': undefined }),
      options,
    );
    assert.ok(result.ok);
    assert.equal('aggregateVersion' in result.envelope, false);
  });

  describe('aggregate version', () => {
    for (const bad of ['0', '-1', '1.5', 'abc', '01', ' 1', '1e3', '9007199254740993']) {
      it(`rejects header ${JSON.stringify(bad)}`, () => {
        const p = poisonOf(
          parseEnvelope(headerMessage(undefined, { 'aggregate-version': bad }), options),
        );
        assert.equal(p.reason, 'validation-failed');
        assert.match(p.error, /aggregate-version: must be a positive integer/);
      });
    }
    for (const bad of [0, -3, 2.5, '3', true]) {
      it(`rejects body value ${JSON.stringify(bad)}`, () => {
        const p = poisonOf(parseEnvelope(bodyMessage({ aggregateVersion: bad }), options));
        assert.equal(p.reason, 'validation-failed');
        assert.match(p.error, /aggregateVersion: must be a positive integer/);
      });
    }
    it('accepts large safe integers', () => {
      const result = parseEnvelope(
        headerMessage(undefined, { 'aggregate-version': '1732240000000' }),
        options,
      );
      assert.ok(result.ok);
      assert.equal(result.envelope.aggregateVersion, 1732240000000);
    });
    it('treats a null body version as absent', () => {
      const result = parseEnvelope(bodyMessage({ aggregateVersion: null }), options);
      assert.ok(result.ok);
      assert.equal(result.envelope.aggregateVersion, undefined);
    });
  });

  describe('message key', () => {
    it('accepts a null key', () => {
      assert.ok(parseEnvelope(headerMessage(undefined, {}, null), options).ok);
    });
    it('ignores a different key when keyMismatch is ignore', () => {
      const result = parseEnvelope(headerMessage(undefined, {}, 'other'), {
        ...options,
        keyMismatch: 'ignore',
      });
      assert.ok(result.ok);
    });
  });

  describe('hostile headers', () => {
    it('treats null values and inherited names as absent, falling back to the body', () => {
      const message = bodyMessage();
      message.headers = {
        'event-id': null,
        'aggregate-id': [null, 'order-123'],
        constructor: [Object, Buffer.from('x')],
        toString: null,
        valueOf: Buffer.from('1'),
      } as unknown as IHeaders;
      const result = parseEnvelope(message, options);
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal(result.envelope.eventId, EVENT_ID);
    });

    it('never takes an identity from an inherited property', () => {
      const message = headerMessage(undefined, { 'event-id': undefined });
      message.headers = Object.assign(Object.create({ 'event-id': 'inherited' }), message.headers);
      const p = poisonOf(parseEnvelope(message, options));
      assert.equal(p.reason, 'missing-identity');
    });

    it('a __proto__ header is an ordinary unknown header', () => {
      const message = headerMessage();
      Object.defineProperty(message.headers, '__proto__', {
        value: Buffer.from('{}'),
        enumerable: true,
      });
      assert.ok(parseEnvelope(message, options).ok);
    });

    it('more than 100 headers → oversized', () => {
      const message = headerMessage();
      for (let i = 0; i < 100; i++) message.headers![`x-${i}`] = 'v';
      const p = poisonOf(parseEnvelope(message, options));
      assert.equal(p.reason, 'oversized');
      assert.match(p.error, /headers: 105 headers, more than the limit of 100/);
    });

    it('more than 64 KiB of headers → oversized', () => {
      const message = headerMessage();
      message.headers!['x-big'] = Buffer.alloc(64 * 1024);
      const p = poisonOf(parseEnvelope(message, options));
      assert.equal(p.reason, 'oversized');
      assert.match(p.error, /headers: \d+ bytes, more than the limit of 65536/);
    });
  });

  describe('JSON nesting depth', () => {
    it('counts brackets outside strings only', () => {
      assert.equal(jsonDepthExceeds('[[1]]', 2), false);
      assert.equal(jsonDepthExceeds('[[[1]]]', 2), true);
      assert.equal(jsonDepthExceeds('{"a":"[[[[\\"[[[["}', 1), false);
      assert.equal(jsonDepthExceeds('{"a\\\\":[[1]]}', 2), true, 'an escaped backslash ends');
    });

    it(`a value nested deeper than ${MAX_JSON_DEPTH} → unparseable, without parsing it`, () => {
      const deep = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
      const p = poisonOf(parseEnvelope({ ...headerMessage(), value: Buffer.from(deep) }, options));
      assert.equal(p.reason, 'unparseable');
      assert.match(p.error, /more than 64 levels deep/);
    });

    it(`accepts exactly ${MAX_JSON_DEPTH} levels`, () => {
      const n = MAX_JSON_DEPTH - 1;
      const value = `{"a":${'['.repeat(n)}${']'.repeat(n)}}`;
      assert.ok(parseEnvelope({ ...headerMessage(), value: Buffer.from(value) }, options).ok);
    });
  });

  describe('well-formed Unicode IDs', () => {
    for (const [field, lone] of [
      ['eventId', '\ud800'],
      ['aggregateId', '\udc00'],
      ['eventId', 'order-\ud83d'],
    ] as const) {
      it(`${field} with a lone surrogate ${JSON.stringify(lone)} → validation-failed`, () => {
        const p = poisonOf(parseEnvelope(bodyMessage({ [field]: lone }, null), options));
        assert.equal(p.reason, 'validation-failed');
        assert.match(p.error, new RegExp(`${field}: must be well-formed Unicode`));
      });
    }
    it('accepts U+FFFD and astral characters', () => {
      assert.ok(parseEnvelope(bodyMessage({ eventId: '\ufffd😀' }, null), options).ok);
    });
  });

  it('accepts application/json with parameters and +json types', () => {
    for (const ct of ['application/json; charset=utf-8', 'application/vnd.onceflow+json']) {
      assert.ok(parseEnvelope(headerMessage(undefined, { 'content-type': ct }), options).ok, ct);
    }
  });
});
