import { strict as assert } from 'node:assert';
import { ConfigResourceTypes, type Admin, type Kafka } from 'kafkajs';
import { dlqTopicOf } from '../../../src/events/dlq-topic';
import { buildDlqMessage } from '../../../src/events/dlq-message';
import { createKafka } from '../../../src/kafka/kafka-client';
import { DLQ_HEADROOM_BYTES, ensureTopics } from '../../../src/kafka/topics';
import { testConfig, uniqueName } from '../../support/services';

const MIB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

async function topicConfig(admin: Admin, topic: string): Promise<Record<string, string>> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
  });
  return Object.fromEntries(resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
}

describe('ensureTopics: DLQ topics fit their source (real Kafka)', () => {
  const config = testConfig();
  let kafka: Kafka;
  let admin: Admin;
  const created: string[] = [];

  before(async () => {
    kafka = createKafka(config.kafka, 'dlq-topic-test');
    admin = kafka.admin();
    await admin.connect();
  });
  after(async () => {
    await admin.deleteTopics({ topics: created }).catch(() => undefined);
    await admin.disconnect();
  });

  it('creates the DLQ of a 2 MiB source with max.message.bytes ≥ 2 MiB and the retention setting, and a 1.5 MiB dead letter fits', async () => {
    const source = uniqueName('big');
    created.push(source, dlqTopicOf(source));
    await admin.createTopics({
      // KafkaJS's own wait retries only LEADER_NOT_AVAILABLE and throws the
      // UNKNOWN_TOPIC_OR_PARTITION a new topic may still answer; ensureTopics waits instead.
      waitForLeaders: false,
      topics: [
        {
          topic: source,
          numPartitions: 1,
          configEntries: [{ name: 'max.message.bytes', value: String(2 * MIB) }],
        },
      ],
    });
    const made = await ensureTopics(kafka, {
      topics: [source],
      partitions: 1,
      dlqRetentionMs: 45 * DAY_MS,
    });
    assert.deepEqual(made, [dlqTopicOf(source)]);

    const dlq = await topicConfig(admin, dlqTopicOf(source));
    assert.ok(Number(dlq['max.message.bytes']) >= 2 * MIB, dlq['max.message.bytes']);
    assert.equal(Number(dlq['max.message.bytes']), 2 * MIB + DLQ_HEADROOM_BYTES);
    assert.equal(dlq['retention.ms'], String(45 * DAY_MS));

    // What the bridge does with an `oversized` message the source accepted: the DLQ takes it.
    const producer = kafka.producer();
    await producer.connect();
    try {
      const value = Buffer.alloc(1.5 * MIB, 0x61);
      await producer.send({ topic: source, acks: -1, messages: [{ key: 'k', value }] });
      const record = buildDlqMessage({
        message: { key: Buffer.from('k'), value, headers: { 'event-id': 'e' } },
        topic: source,
        partition: 0,
        offset: '0',
        reason: 'oversized',
        error: 'x'.repeat(5000),
        failedAt: new Date(),
      });
      await producer.send({ topic: record.topic, acks: -1, messages: [record.message] });
    } finally {
      await producer.disconnect();
    }
    const offsets = await admin.fetchTopicOffsets(dlqTopicOf(source));
    assert.equal(offsets[0]!.high, '1', 'the dead letter was written');
  });

  it('raises an existing DLQ topic that is too small or too short-lived, keeping its other overrides', async () => {
    const source = uniqueName('raise');
    const dlqTopic = dlqTopicOf(source);
    created.push(source, dlqTopic);
    await admin.createTopics({
      // KafkaJS's own wait retries only LEADER_NOT_AVAILABLE and throws the
      // UNKNOWN_TOPIC_OR_PARTITION a new topic may still answer; ensureTopics waits instead.
      waitForLeaders: false,
      topics: [
        { topic: source, numPartitions: 1 },
        {
          topic: dlqTopic,
          numPartitions: 1,
          configEntries: [
            { name: 'max.message.bytes', value: '1000' },
            { name: 'retention.ms', value: String(DAY_MS) },
            { name: 'compression.type', value: 'gzip' },
          ],
        },
      ],
    });
    const logged: unknown[] = [];
    const made = await ensureTopics(kafka, {
      topics: [source],
      partitions: 1,
      log: { info: (obj: unknown) => void logged.push(obj) } as never,
    });
    assert.deepEqual(made, []);
    const sourceMax = Number((await topicConfig(admin, source))['max.message.bytes']);
    const dlq = await topicConfig(admin, dlqTopic);
    assert.equal(Number(dlq['max.message.bytes']), sourceMax + DLQ_HEADROOM_BYTES);
    assert.equal(dlq['retention.ms'], String(30 * DAY_MS), 'the 30-day default');
    assert.equal(dlq['compression.type'], 'gzip', 'an unrelated override survives');
    assert.equal(logged.length, 1, 'the change is logged');

    // A second run finds nothing to change.
    await ensureTopics(kafka, {
      topics: [source],
      partitions: 1,
      log: { info: () => assert.fail('changed again') } as never,
    });
  });
});
