import { strict as assert } from 'node:assert';
import { buildDlqMessage, MAX_DLQ_ERROR_LENGTH } from '../../../src/kafka-bridge/dlq-message';
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
});
