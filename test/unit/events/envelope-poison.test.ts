import { strict as assert } from 'node:assert';
import { parseEnvelope, type PoisonReason } from '../../../src/events/envelope';
import { bodyMessage, headerMessage } from './fixtures';
import { options, poisonOf } from './envelope-helpers';

describe('bridge: parseEnvelope', () => {
  describe('poison', () => {
    const cases: Array<{
      name: string;
      message: () => Parameters<typeof parseEnvelope>[0];
      reason: PoisonReason;
      error: RegExp;
    }> = [
      {
        name: 'a value that is not JSON',
        message: () => ({ ...headerMessage(), value: Buffer.from('{not json') }),
        reason: 'unparseable',
        error: /value is not JSON/,
      },
      {
        name: 'a null value (tombstone)',
        message: () => ({ ...headerMessage(), value: null }),
        reason: 'unparseable',
        error: /empty/,
      },
      {
        name: 'a JSON array value',
        message: () => ({ ...headerMessage(), value: Buffer.from('[1,2]') }),
        reason: 'unparseable',
        error: /must be a JSON object, got an array/,
      },
      {
        name: 'invalid UTF-8',
        message: () => ({ ...headerMessage(), value: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }),
        reason: 'unparseable',
        error: /not valid UTF-8/,
      },
      {
        name: 'a non-JSON content type',
        message: () => headerMessage(undefined, { 'content-type': 'application/avro' }),
        reason: 'unparseable',
        error: /content-type "application\/avro"/,
      },
      {
        name: 'a missing event ID',
        message: () => headerMessage(undefined, { 'event-id': undefined }),
        reason: 'missing-identity',
        error: /eventId: missing \(neither header event-id nor body field eventId/,
      },
      {
        name: 'a missing event type',
        message: () => bodyMessage({ eventType: undefined }),
        reason: 'missing-identity',
        error: /eventType: missing/,
      },
      {
        name: 'a missing aggregate ID',
        message: () => headerMessage(undefined, { 'aggregate-id': undefined }),
        reason: 'missing-identity',
        error: /aggregateId: missing/,
      },
      {
        name: 'an empty event ID',
        message: () => headerMessage(undefined, { 'event-id': '  ' }),
        reason: 'missing-identity',
        error: /eventId: must not be empty/,
      },
      {
        name: 'an event ID with a control character',
        message: () => headerMessage(undefined, { 'event-id': 'a\nb' }),
        reason: 'validation-failed',
        error: /eventId: must not contain control characters/,
      },
      {
        name: 'an event ID with a C1 control (U+009B, a one-character CSI)',
        message: () => headerMessage(undefined, { 'event-id': 'a\u009b2Jb' }),
        reason: 'validation-failed',
        error: /eventId: must not contain control characters/,
      },
      {
        name: 'an aggregate ID with a C1 control (U+0085, next line)',
        message: () => bodyMessage({ aggregateId: 'order\u0085x' }, null),
        reason: 'validation-failed',
        error: /aggregateId: must not contain control characters/,
      },
      {
        name: 'an oversized aggregate ID',
        message: () => bodyMessage({ aggregateId: 'x'.repeat(201) }, null),
        reason: 'validation-failed',
        error: /aggregateId: must be at most 200/,
      },
      {
        name: 'a body identity field that is not a string',
        message: () => bodyMessage({ eventId: 42 }),
        reason: 'validation-failed',
        error: /eventId: must be a string/,
      },
      {
        name: 'envelope fields without data',
        message: () => bodyMessage({ data: undefined }),
        reason: 'validation-failed',
        error: /data: is required/,
      },
      {
        name: 'a header that disagrees with the body',
        message: () => ({ ...bodyMessage(), headers: { 'event-id': 'other-id' } }),
        reason: 'header-body-mismatch',
        error: /header event-id "other-id" differs from body field eventId/,
      },
      {
        name: 'a version header that disagrees with the body version',
        message: () => ({ ...bodyMessage(), headers: { 'aggregate-version': '2' } }),
        reason: 'header-body-mismatch',
        error: /aggregate-version 2 differs from body field aggregateVersion 1/,
      },
      {
        name: 'a header repeated with different values',
        message: () => ({
          ...headerMessage(),
          headers: { ...headerMessage().headers, 'event-id': ['a', 'b'] },
        }),
        reason: 'header-body-mismatch',
        error: /repeated with different values/,
      },
      {
        name: 'a key that is not the aggregate ID',
        message: () => headerMessage(undefined, {}, 'order-999'),
        reason: 'key-mismatch',
        error: /message key "order-999" is not the aggregate ID "order-123"/,
      },
      {
        name: 'an event type that is not a name',
        message: () => headerMessage(undefined, { 'event-type': 'Order Placed!' }),
        reason: 'validation-failed',
        error: /eventType: must start with a letter/,
      },
    ];
    for (const c of cases) {
      it(`${c.name} → ${c.reason}`, () => {
        const p = poisonOf(parseEnvelope(c.message(), options));
        assert.equal(p.reason, c.reason, p.error);
        assert.match(p.error, c.error);
      });
    }

    it('a value larger than maxBytes → oversized, without parsing it', () => {
      const message = { ...headerMessage(), value: Buffer.alloc(101, 0xff) };
      const p = poisonOf(parseEnvelope(message, { maxBytes: 100 }));
      assert.equal(p.reason, 'oversized');
      assert.match(p.error, /101 bytes, more than the limit of 100/);
      assert.ok(parseEnvelope(headerMessage(), { maxBytes: headerMessage().value!.length }).ok);
    });
  });
});
