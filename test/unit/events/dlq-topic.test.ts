import { strict as assert } from 'node:assert';
import { dlqTopicOf, isDlqTopic } from '../../../src/events/dlq-topic';

describe('DLQ topic rule', () => {
  it('names the DLQ of a topic, and recognises it', () => {
    assert.equal(dlqTopicOf('orders'), 'orders.dlq');
    assert.equal(isDlqTopic(dlqTopicOf('orders')), true);
    assert.equal(isDlqTopic('orders'), false);
    assert.equal(isDlqTopic('orders.dlq.archive'), false);
  });
});
