import { strict as assert } from 'node:assert';
import type { Kafka } from 'kafkajs';
import {
  DlqTopicCreateError,
  DlqTopicMissingError,
  prepareDlqTopics,
} from '../../../src/kafka/dlq-topics';
import { DLQ_HEADROOM_BYTES, ensureTopics } from '../../../src/kafka/topics';

const DAY_MS = 24 * 60 * 60 * 1000;

interface Entry {
  configName: string;
  configValue: string;
  configSource: number;
}

/**
 * A fake admin that behaves like a broker right after CreateTopics: metadata first fails with
 * UNKNOWN_TOPIC_OR_PARTITION (what KafkaJS's own leader wait throws on), then shows a
 * partition without a leader, then the elected leader. Topic configs are what a broker with
 * default settings reports (source 5 = default, 1 = topic override).
 */
function fakeKafka(
  answers: (() => unknown)[],
  existing: string[] = ['orders'],
  topicConfigs: Record<string, Entry[]> = {},
  brokerDefaults = { replicationFactor: 1, minInsync: 1 },
) {
  const calls = {
    created: [] as string[],
    createdConfigs: {} as Record<string, Record<string, string>>,
    createdReplication: {} as Record<string, number | undefined>,
    createdPartitions: {} as Record<string, number | undefined>,
    altered: [] as Array<{ name: string; configEntries: { name: string; value: string }[] }>,
    metadata: 0,
    disconnected: false,
  };
  const defaults = (): Entry[] => [
    { configName: 'max.message.bytes', configValue: '1048588', configSource: 5 },
    { configName: 'retention.ms', configValue: '604800000', configSource: 5 },
  ];
  const admin = {
    connect: async () => undefined,
    disconnect: async () => void (calls.disconnected = true),
    listTopics: async () => existing,
    describeCluster: async () => ({ brokers: [{ nodeId: 7, host: '127.0.0.1', port: 9092 }] }),
    createTopics: async ({
      topics,
    }: {
      topics: {
        topic: string;
        numPartitions?: number;
        replicationFactor?: number;
        configEntries?: { name: string; value: string }[];
      }[];
    }) => {
      for (const t of topics) {
        calls.created.push(t.topic);
        calls.createdReplication[t.topic] = t.replicationFactor;
        calls.createdPartitions[t.topic] = t.numPartitions;
        calls.createdConfigs[t.topic] = Object.fromEntries(
          (t.configEntries ?? []).map((e) => [e.name, e.value]),
        );
      }
      return true;
    },
    describeConfigs: async ({ resources }: { resources: { type: number; name: string }[] }) => ({
      resources: resources.map((r) => ({
        resourceName: r.name,
        errorCode: 0,
        errorMessage: '',
        configEntries:
          // 4 = BROKER: the fake broker 7's defaults (source 4 = static broker config).
          r.type === 4
            ? r.name === '7'
              ? [
                  {
                    configName: 'default.replication.factor',
                    configValue: String(brokerDefaults.replicationFactor),
                    configSource: 4,
                  },
                  {
                    configName: 'min.insync.replicas',
                    configValue: String(brokerDefaults.minInsync),
                    configSource: 4,
                  },
                ]
              : []
            : (topicConfigs[r.name] ?? defaults()),
      })),
    }),
    alterConfigs: async ({
      resources,
    }: {
      resources: { name: string; configEntries: { name: string; value: string }[] }[];
    }) => {
      calls.altered.push(...resources);
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

  it("creates the DLQ topic with the source's max.message.bytes plus headroom and a long retention", async () => {
    const { kafka, calls } = fakeKafka([() => metadata(1)], ['orders'], {
      orders: [{ configName: 'max.message.bytes', configValue: '2097152', configSource: 1 }],
    });
    await ensureTopics(kafka, { topics: ['orders'], partitions: 1, dlqRetentionMs: 90 * DAY_MS });
    assert.deepEqual(calls.createdConfigs['orders.dlq'], {
      'max.message.bytes': String(2097152 + DLQ_HEADROOM_BYTES),
      'retention.ms': String(90 * DAY_MS),
    });
  });

  it('defaults the DLQ retention to 30 days', async () => {
    const { kafka, calls } = fakeKafka([() => metadata(1)]);
    await ensureTopics(kafka, { topics: ['orders'], partitions: 1 });
    assert.equal(calls.createdConfigs['orders.dlq']!['retention.ms'], String(30 * DAY_MS));
  });

  it('raises an existing smaller DLQ topic, keeping its other overrides, and logs it', async () => {
    const logged: unknown[] = [];
    const { kafka, calls } = fakeKafka([() => metadata(1)], ['orders', 'orders.dlq'], {
      'orders.dlq': [
        { configName: 'max.message.bytes', configValue: '1000', configSource: 1 },
        { configName: 'retention.ms', configValue: '3600000', configSource: 1 },
        { configName: 'cleanup.policy', configValue: 'delete', configSource: 1 },
        { configName: 'segment.bytes', configValue: '1073741824', configSource: 5 },
      ],
    });
    await ensureTopics(kafka, {
      topics: ['orders'],
      partitions: 1,
      log: { info: (obj: unknown) => void logged.push(obj) } as never,
    });
    assert.deepEqual(calls.created, []);
    assert.equal(calls.altered.length, 1);
    assert.deepEqual(
      Object.fromEntries(calls.altered[0]!.configEntries.map((e) => [e.name, e.value])),
      {
        'max.message.bytes': String(1048588 + DLQ_HEADROOM_BYTES),
        'retention.ms': String(30 * DAY_MS),
        'cleanup.policy': 'delete',
      },
      'overrides kept, broker defaults not pinned',
    );
    assert.equal(logged.length, 1);
  });

  it('leaves an existing DLQ topic that is large and long enough alone', async () => {
    const { kafka, calls } = fakeKafka([() => metadata(1)], ['orders', 'orders.dlq'], {
      'orders.dlq': [
        { configName: 'max.message.bytes', configValue: '10485760', configSource: 1 },
        { configName: 'retention.ms', configValue: '-1', configSource: 1 },
      ],
    });
    await ensureTopics(kafka, { topics: ['orders'], partitions: 1 });
    assert.deepEqual(calls.altered, []);
  });

  it("creates topics with the cluster's replication and pins its min.insync.replicas", async () => {
    const { kafka, calls } = fakeKafka(
      [() => metadata(1)],
      [],
      {},
      {
        replicationFactor: 3,
        minInsync: 2,
      },
    );
    await ensureTopics(kafka, { topics: ['orders'], partitions: 1 });
    assert.deepEqual(calls.createdReplication, { orders: 3, 'orders.dlq': 3 });
    assert.equal(calls.createdConfigs.orders!['min.insync.replicas'], '2');
    assert.equal(calls.createdConfigs['orders.dlq']!['min.insync.replicas'], '2');
  });

  it('gives single-broker topics one copy and no min.insync.replicas override', async () => {
    const { kafka, calls } = fakeKafka([() => metadata(1)], []);
    await ensureTopics(kafka, { topics: ['orders'], partitions: 1 });
    assert.deepEqual(calls.createdReplication, { orders: 1, 'orders.dlq': 1 });
    assert.deepEqual(calls.createdConfigs.orders, {});
    assert.equal(calls.createdConfigs['orders.dlq']!['min.insync.replicas'], undefined);
  });

  it('pins min.insync.replicas to what an explicit replication factor can meet', async () => {
    const { kafka, calls } = fakeKafka(
      [() => metadata(1)],
      [],
      {},
      {
        replicationFactor: 3,
        minInsync: 2,
      },
    );
    await ensureTopics(kafka, { topics: ['orders'], partitions: 1, replicationFactor: 1 });
    assert.deepEqual(calls.createdReplication, { orders: 1, 'orders.dlq': 1 });
    assert.equal(calls.createdConfigs.orders!['min.insync.replicas'], '1');
  });
});

describe('prepareDlqTopics: what the bridge does at start (with a fake admin)', () => {
  it('creates the missing DLQ topic of each existing source with its partition count; leaves missing sources to the consumer', async () => {
    const { kafka, calls } = fakeKafka(
      [
        () => ({
          topics: [
            { name: 'orders', partitions: [0, 1, 2].map((p) => ({ partitionId: p, leader: 1 })) },
          ],
        }),
        () => metadata(1),
      ],
      ['orders'],
    );
    const created = await prepareDlqTopics(kafka, ['orders', 'absent'], {
      mode: 'create',
      retentionMs: 5 * DAY_MS,
    });
    assert.deepEqual(created, ['orders.dlq']);
    assert.deepEqual(calls.created, ['orders.dlq']);
    assert.equal(calls.createdPartitions['orders.dlq'], 3, "its source's partitions");
    assert.equal(calls.createdConfigs['orders.dlq']!['retention.ms'], String(5 * DAY_MS));
    assert.equal(calls.disconnected, true);
  });

  it('require: refuses naming the missing DLQ topics and the command that makes them; creates nothing', async () => {
    const { kafka, calls } = fakeKafka([() => metadata(1)], ['orders']);
    await assert.rejects(
      prepareDlqTopics(kafka, ['orders'], { mode: 'require', retentionMs: DAY_MS }),
      (err: Error) =>
        err instanceof DlqTopicMissingError &&
        /orders\.dlq does not exist: create them with `npx onceflow setup`/.test(err.message),
    );
    assert.deepEqual(calls.created, []);
    assert.equal(calls.disconnected, true);
  });

  it('a creation the cluster refuses (an ACL) stops the start naming the topics and the fix', async () => {
    const { kafka } = fakeKafka([() => metadata(1)], ['orders']);
    const admin = kafka.admin() as unknown as { createTopics: () => Promise<boolean> };
    admin.createTopics = () => Promise.reject(new Error('Cluster authorization failed'));
    await assert.rejects(
      prepareDlqTopics(kafka, ['orders'], { mode: 'create', retentionMs: DAY_MS }),
      (err: Error) =>
        err instanceof DlqTopicCreateError &&
        /orders\.dlq: Cluster authorization failed\. Create them with `npx onceflow setup`/.test(
          err.message,
        ),
    );
  });
});
