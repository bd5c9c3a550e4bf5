import { strict as assert } from 'node:assert';
import type { KafkaMessage } from 'kafkajs';
import { createEventProducer, createPublishActivities } from '../../../src/activities/kafka';
import { createKafka } from '../../../src/kafka/kafka-client';
import { readTopicsToEnd } from '../../../src/kafka/topic-reader';
import { ensureTopics } from '../../../src/kafka/topics';
import { testConfig, uniqueName } from '../../support/services';

/**
 * Publishing steps that run at once share produce requests (src/activities/publish-batcher.ts),
 * and each still learns exactly where its own record went: the partition and offset a step
 * answers hold the record with its event ID.
 */
describe('publishing steps at once share requests, each answer exact (real Kafka)', function () {
  this.timeout(60_000);

  it('60 events at once: fewer requests than records, every (partition, offset) holds its event', async () => {
    const config = testConfig();
    const topic = uniqueName('publish-batching');
    const kafka = createKafka(config.kafka, 'test');
    await ensureTopics(kafka, { topics: [topic], partitions: 6 });
    const producer = createEventProducer(config.kafka);
    let produceRequests = 0;
    const p = await producer.producer();
    p.on(p.events.REQUEST, (e) => {
      if (e.payload.apiName === 'Produce') produceRequests++;
    });
    try {
      const { publishEvent } = createPublishActivities({
        producer,
        topicOf: () => topic,
        transientRetryWindowMs: 1000,
      });
      const entities = Array.from({ length: 60 }, (_, i) => `entity-${i}`);
      const answers = await Promise.all(
        entities.map((entityId) =>
          publishEvent({
            domain: 'test',
            eventType: 'Batched',
            key: `test:${entityId}:announce`,
            entityId,
            data: { entityId },
          }),
        ),
      );
      const at = new Map<string, string>();
      await readTopicsToEnd(
        kafka,
        [topic],
        (_t, partition, m: KafkaMessage) =>
          at.set(`${partition}/${m.offset}`, String(m.headers?.['event-id'])),
        { groupId: uniqueName('read-batched'), timeoutMs: 30_000 },
      );
      assert.equal(at.size, 60, 'one record per event');
      for (const a of answers)
        assert.equal(at.get(`${a.partition}/${a.offset}`), a.eventId, `${a.eventId}'s answer`);
      assert.ok(
        produceRequests >= 2 && produceRequests < 60,
        `${produceRequests} produce requests for 60 records sent at once`,
      );
    } finally {
      await producer.close();
    }
  });
});
