import { strict as assert } from 'node:assert';
import type { Kafka } from 'kafkajs';
import { ensureTopics } from '../../../src/kafka-bridge/topics';

/**
 * A fake admin that behaves like a broker right after CreateTopics: metadata first fails with
 * UNKNOWN_TOPIC_OR_PARTITION (what KafkaJS's own leader wait throws on), then shows a
 * partition without a leader, then the elected leader.
 */
function fakeKafka(answers: (() => unknown)[]) {
  const calls = { created: [] as string[], metadata: 0, disconnected: false };
  const admin = {
    connect: async () => undefined,
    disconnect: async () => void (calls.disconnected = true),
    listTopics: async () => ['orders'],
    createTopics: async ({ topics }: { topics: { topic: string }[] }) => {
      calls.created.push(...topics.map((t) => t.topic));
      return true;
    },
    fetchTopicMetadata: async () => {
      const answer = answers[Math.min(calls.metadata++, answers.length - 1)]!;
      return answer();
    },
  };
  return { kafka: { admin: () => admin } as unknown as Kafka, calls };
}

const metadata = (leader: number) => ({
  topics: ['orders', 'orders.dlq'].map((name) => ({
    name,
    partitions: [{ partitionId: 0, leader }],
  })),
});

describe('ensureTopics', () => {
  it('waits through "does not host this topic-partition" until every partition has a leader', async () => {
    const { kafka, calls } = fakeKafka([
      () => {
        throw new Error('This server does not host this topic-partition');
      },
      () => metadata(-1),
      () => metadata(1),
    ]);
    const created = await ensureTopics(kafka, { topics: ['orders'], partitions: 4 });
    assert.deepEqual(created, ['orders.dlq']);
    assert.deepEqual(calls.created, ['orders.dlq']);
    assert.equal(calls.metadata, 3, 'returned only once leaders were elected');
    assert.equal(calls.disconnected, true);
  });

  it('names the topics when leaders never appear, and still disconnects', async () => {
    const { kafka, calls } = fakeKafka([() => metadata(-1)]);
    await assert.rejects(
      ensureTopics(kafka, { topics: ['orders'], partitions: 1, leaderTimeoutMs: 300 }),
      /leaders for every partition of orders, orders\.dlq/,
    );
    assert.equal(calls.disconnected, true);
  });
});
