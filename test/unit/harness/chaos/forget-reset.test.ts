import { strict as assert } from 'node:assert';
import type { Kafka } from 'kafkajs';
import { resetGroupToEarliest } from '../../../../harness/chaos/forget';

/**
 * An admin whose resetOffsets resolves every time, but whose commit is taken only from the
 * `takenFrom`-th call on: what KafkaJS does while __consumer_offsets is short of in-sync
 * replicas (its reset commits through a consumer and resolves on the first fetch anyway).
 * Until then the group keeps where the bridge had committed.
 */
function fakeKafka(takenFrom: number, before = '25') {
  let resets = 0;
  let committed = before;
  const admin = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    resetOffsets: async () => {
      resets++;
      if (resets >= takenFrom) committed = '-2';
    },
    fetchTopicOffsets: async () => [0, 1].map((partition) => ({ partition, low: '0' })),
    fetchOffsets: async () => [
      { topic: 't', partitions: [0, 1].map((partition) => ({ partition, offset: committed })) },
    ],
  };
  return { kafka: { admin: () => admin } as unknown as Kafka, resets: () => resets };
}

describe('resetGroupToEarliest: the group really starts over', () => {
  it('resets again until the committed offsets are at the beginning (seed 19: 2 runs never re-read)', async () => {
    const fake = fakeKafka(3);
    await resetGroupToEarliest(fake.kafka, 'g', 't', 10_000);
    assert.equal(fake.resets(), 3, 'the two resets whose commit was not taken were made again');
  });

  it('fails by name when the reset never takes', async () => {
    const fake = fakeKafka(Infinity);
    await assert.rejects(
      resetGroupToEarliest(fake.kafka, 'g', 't', 1200),
      /consumer group g reset to the earliest offsets of t/,
    );
  });

  it('takes an offset at or below the low watermark as the beginning', async () => {
    const fake = fakeKafka(Infinity, '0');
    await resetGroupToEarliest(fake.kafka, 'g', 't', 5000);
    assert.equal(fake.resets(), 1);
  });
});
