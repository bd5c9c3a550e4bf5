import { strict as assert } from 'node:assert';
import pino from 'pino';
import { createKafka } from '../../../src/kafka/kafka-client';
import { readRecordsAt, recordKey } from '../../../src/kafka/records-at';
import { ensureTopics } from '../../../src/kafka/topics';
import { testConfig, uniqueName } from '../../support/services';

/**
 * readRecordsAt against the real broker: records far apart in one partition, one in another,
 * one deleted below the log start, one beyond the end, on a topic of its own.
 */
describe('readRecordsAt (real Kafka)', function () {
  this.timeout(120_000);

  it('returns exactly the records asked for, and says which are deleted or absent', async () => {
    const kafka = createKafka(testConfig().kafka, 'test', pino({ level: 'silent' }));
    const topic = uniqueName('records_at');
    await ensureTopics(kafka, { topics: [topic], partitions: 2 });
    const producer = kafka.producer();
    await producer.connect();
    try {
      // 2,000 records of ~10 KB: a fetch returns about 100 of them, so reaching 1500 and 1999
      // from 5 takes the seeks over the gaps.
      for (let i = 0; i < 40; i++) {
        await producer.send({
          topic,
          acks: -1,
          messages: Array.from({ length: 50 }, (_, j) => ({
            partition: 0,
            value: `p0-${i * 50 + j}:`.padEnd(10_000, `${j}`),
          })),
        });
      }
      await producer.send({ topic, acks: -1, messages: [{ partition: 1, value: 'p1-0' }] });
    } finally {
      await producer.disconnect();
    }
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.fetchTopicMetadata({ topics: [topic] });
      await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '3' }] });
    } finally {
      await admin.disconnect();
    }

    const wanted = [
      { partition: 0, offset: '5' },
      { partition: 0, offset: '1500' },
      { partition: 0, offset: '1999' },
      { partition: 1, offset: '0' },
      { partition: 0, offset: '1' },
      { partition: 0, offset: '2000' },
      { partition: 7, offset: '0' },
    ];
    const found = await readRecordsAt(kafka, topic, wanted, { groupId: uniqueName('records') });
    const value = (p: number, o: string) => {
      const at = found.get(recordKey(p, o))!;
      return at.found ? at.message.value!.toString().split(':')[0] : at.why;
    };
    assert.equal(value(0, '5'), 'p0-5');
    assert.equal(value(0, '1500'), 'p0-1500');
    assert.equal(value(0, '1999'), 'p0-1999');
    assert.equal(value(1, '0'), 'p1-0');
    assert.equal(value(0, '1'), 'deleted');
    assert.equal(value(0, '2000'), 'absent', 'beyond the end');
    assert.equal(value(7, '0'), 'absent', 'no such partition');
    assert.equal(found.size, wanted.length);

    const none = await readRecordsAt(kafka, uniqueName('no_topic'), [wanted[0]!], {
      groupId: uniqueName('records'),
    });
    assert.deepEqual([...none.values()], [{ found: false, why: 'absent' }]);
  });
});
