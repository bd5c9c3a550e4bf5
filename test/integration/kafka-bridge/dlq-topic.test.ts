import { strict as assert } from 'node:assert';
import { ConfigResourceTypes, type Admin, type Kafka } from 'kafkajs';
import { dlqTopicOf } from '../../../src/events/dlq-topic';
import { buildDlqMessage } from '../../../src/events/dlq-message';
import { createKafka } from '../../../src/kafka/kafka-client';
import { DlqTopicMissingError } from '../../../src/kafka/dlq-topics';
import { DLQ_HEADROOM_BYTES, ensureTopics } from '../../../src/kafka/topics';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
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

describe('bridge start: every topic it reads has its DLQ topic before a poison message needs it (real Kafka)', () => {
  let h: BridgeHarness;
  let admin: Admin;
  let source: string;
  beforeEach(async () => {
    h = await new BridgeHarness().setUp(1);
    admin = h.kafka.admin();
    await admin.connect();
    // A topic a team made itself: three partitions, a larger size limit, no DLQ topic.
    source = uniqueName('team-topic');
    await admin.createTopics({
      waitForLeaders: false,
      topics: [
        {
          topic: source,
          numPartitions: 3,
          configEntries: [{ name: 'max.message.bytes', value: String(2 * MIB) }],
        },
      ],
    });
    await waitFor(async () => (await admin.listTopics()).includes(source), {
      timeoutMs: 30_000,
      what: 'the team topic',
    });
  });
  afterEach(async () => {
    await admin.deleteTopics({ topics: [source, dlqTopicOf(source)] }).catch(() => undefined);
    await admin.disconnect();
    await h.tearDown();
  });

  it('BRIDGE_DLQ_TOPICS=create (the default): made at start as its source, and the first poison lands in it', async () => {
    await h.startBridge({ topics: [source] });
    const [meta] = (await admin.fetchTopicMetadata({ topics: [dlqTopicOf(source)] })).topics;
    assert.equal(meta!.partitions.length, 3, "its source's partitions");
    const dlq = await topicConfig(admin, dlqTopicOf(source));
    assert.equal(Number(dlq['max.message.bytes']), 2 * MIB + DLQ_HEADROOM_BYTES);
    assert.equal(dlq['retention.ms'], String(h.config.bridge.dlqRetentionDays * DAY_MS));
    await h.produce([{ key: 'k', value: 'not json' }], source);
    await h.waitUntilAllCommitted(30_000, source);
    assert.deepEqual(
      (await h.readDlq(source)).map((m) => m.headers['dlq-reason']),
      ['unparseable'],
    );
  });

  it('BRIDGE_DLQ_TOPICS=require: the bridge refuses to start, naming the DLQ topic and the command that makes it', async () => {
    const config = { ...h.config, bridge: { ...h.config.bridge, dlqTopics: 'require' as const } };
    await assert.rejects(
      h.startBridge({ topics: [source], config }),
      (err: Error) =>
        err instanceof DlqTopicMissingError &&
        err.message.includes(`${source}.dlq does not exist`) &&
        err.message.includes('npx onceflow setup'),
    );
    assert.ok(!(await admin.listTopics()).includes(dlqTopicOf(source)), 'nothing created');
  });
});
