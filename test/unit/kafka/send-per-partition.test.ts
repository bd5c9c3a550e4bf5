import { strict as assert } from 'node:assert';
import { createRequire } from 'node:module';
import { Partitioners, type Message, type Producer } from 'kafkajs';
import {
  groupByPartition,
  publishPerPartition,
  readPartitionCount,
  sendPerPartition,
} from '../../../src/kafka/send-per-partition';

const requireHere = createRequire(__filename);

type PartitionData = { partition: number; messages: Message[] };
type TopicMessages = { topic: string; messages: Message[] };
type SendMessages = (args: {
  acks: number;
  timeout?: number;
  topicMessages: TopicMessages[];
}) => Promise<unknown>;

/**
 * KafkaJS's own produce path (kafkajs/src/producer/sendMessages.js, the code behind
 * producer.send) on a fake two-broker cluster. Partition 0 is led by broker 3, partition 1 by
 * broker 1. Broker 1 is shutting down: its first produce answers NOT_LEADER_FOR_PARTITION,
 * and the metadata refresh that follows shows partition 1 led by broker 3, as a controlled
 * shutdown moves it. Returns KafkaJS's send and what each broker wrote.
 */
function clusterWithLeaderMove() {
  const { createErrorFromCode } = requireHere('kafkajs/src/protocol/error') as {
    createErrorFromCode: (code: number) => Error;
  };
  const NOT_LEADER_FOR_PARTITION = 6;
  const createSendMessages = requireHere('kafkajs/src/producer/sendMessages') as (
    deps: unknown,
  ) => SendMessages;
  const createRetry = requireHere('kafkajs/src/retry') as (options: unknown) => unknown;
  const leaders = new Map([
    [0, 3],
    [1, 1],
  ]);
  const written = new Map<number, string[]>(); // partition → values on its leader's log
  let brokerOneDown = false;
  const brokerOf = (nodeId: number) => ({
    nodeId,
    produce: ({ topicData }: { topicData: { topic: string; partitions: PartitionData[] }[] }) => {
      if (nodeId === 1) {
        brokerOneDown = true;
        throw createErrorFromCode(NOT_LEADER_FOR_PARTITION);
      }
      const topics = topicData.map(({ topic, partitions }) => ({
        topicName: topic,
        partitions: partitions.map((p) => {
          const log = written.get(p.partition) ?? [];
          log.push(...p.messages.map((m) => String(m.value)));
          written.set(p.partition, log);
          return { partition: p.partition, errorCode: 0, baseOffset: '0' };
        }),
      }));
      return Promise.resolve({ topics });
    },
  });
  const brokers = new Map([1, 3].map((id) => [id, brokerOf(id)]));
  const cluster = {
    refreshMetadataIfNecessary: async () => undefined,
    refreshMetadata: async () => {
      if (brokerOneDown) leaders.set(1, 3);
    },
    addMultipleTargetTopics: async () => undefined,
    isConnected: () => true,
    findTopicPartitionMetadata: () =>
      [...leaders].map(([partitionId, leader]) => ({ partitionId, leader })),
    findLeaderForPartitions: (_topic: string, partitions: string[]) => {
      const out: Record<number, number[]> = {};
      for (const p of partitions.map(Number)) (out[leaders.get(p)!] ??= []).push(p);
      return out;
    },
    // KafkaJS passes the node IDs as the keys of an object: strings.
    findBroker: async ({ nodeId }: { nodeId: number | string }) => brokers.get(Number(nodeId))!,
  };
  const eosManager = {
    isTransactional: () => false,
    acquireBrokerLock: async () => undefined,
    releaseBrokerLock: async () => undefined,
    getSequence: () => 0,
    updateSequence: () => undefined,
    getProducerId: () => -1,
    getProducerEpoch: () => 0,
  };
  const silent = () => undefined;
  const logger = { debug: silent, info: silent, warn: silent, error: silent };
  const send = createSendMessages({
    logger,
    cluster,
    partitioner: Partitioners.DefaultPartitioner(),
    eosManager,
    retrier: createRetry({ retries: 3, initialRetryTime: 1, maxRetryTime: 5 }),
  });
  return { send, written };
}

const messages: Message[] = [
  { partition: 0, value: 'a' },
  { partition: 1, value: 'b' },
  { partition: 0, value: 'c' },
  { partition: 1, value: 'd' },
];

/** A Producer whose send() is KafkaJS's own produce path on `send`'s cluster. */
function producerOn(send: SendMessages): Pick<Producer, 'send'> {
  return {
    send: (record) =>
      send({ acks: record.acks ?? -1, topicMessages: [record] }) as ReturnType<Producer['send']>,
  };
}

describe('sendPerPartition: every message written across a leader move', () => {
  it('KafkaJS alone: one produce call across two leaders resolves without partition 1 written', async () => {
    // Why the helper exists. If this starts failing, KafkaJS fixed its retry; keep the helper
    // anyway (it costs one call per partition) or drop it with this test.
    const { send, written } = clusterWithLeaderMove();
    await producerOn(send).send({ topic: 't', acks: -1, messages });
    assert.deepEqual(written.get(0), ['a', 'c']);
    assert.equal(written.get(1), undefined, 'KafkaJS wrote partition 1 after all');
  });

  it('one call per partition writes both partitions, each in order, on the same leader move', async () => {
    const { send, written } = clusterWithLeaderMove();
    await sendPerPartition(producerOn(send), { topic: 't', messages, partitions: 2 });
    assert.deepEqual(written.get(0), ['a', 'c']);
    assert.deepEqual(written.get(1), ['b', 'd']);
  });

  it('sends each partition in a call of its own, to the partition a plain send would choose', async () => {
    const calls: { messages: Message[]; acks?: number }[] = [];
    const fake = {
      send: async (record: { messages: Message[]; acks?: number }) => {
        calls.push(record);
        return [];
      },
    };
    const keyed = Array.from({ length: 40 }, (_, i) => ({
      key: `order-${i}`,
      value: String(i),
    }));
    await sendPerPartition(fake as never, { topic: 't', messages: keyed, partitions: 6 });
    const partitioner = Partitioners.DefaultPartitioner();
    const metadata = Array.from({ length: 6 }, (_, partitionId) => ({ partitionId, leader: 0 }));
    for (const call of calls) {
      const parts = new Set(call.messages.map((m) => m.partition));
      assert.equal(parts.size, 1, 'one partition per call');
      assert.equal(call.acks, -1);
      for (const m of call.messages)
        assert.equal(
          m.partition,
          partitioner({
            topic: 't',
            partitionMetadata: metadata as never,
            message: { key: m.key, value: m.value },
          }),
        );
    }
    const sent = calls.flatMap((c) => c.messages.map((m) => m.value));
    assert.deepEqual([...sent].sort(), keyed.map((m) => m.value).sort());
  });

  it('refuses a partition count that is not a positive integer', () => {
    assert.throws(() => groupByPartition('t', [], 0), /positive integer/);
  });
});

describe('publishPerPartition: a whole stream, chunk by chunk, one call per partition', () => {
  function fakeKafka(partitions: number) {
    const admin = {
      connected: 0,
      connect: async () => void admin.connected++,
      disconnect: async () => void admin.connected--,
      fetchTopicMetadata: async () => ({
        topics: [{ name: 't', partitions: Array.from({ length: partitions }, () => ({})) }],
      }),
    };
    return { admin, kafka: { admin: () => admin } as never };
  }

  it('writes every message once, with at most `chunk` per call and one partition per call', async () => {
    const { admin, kafka } = fakeKafka(4);
    const calls: Message[][] = [];
    const producer = {
      send: async (record: { messages: Message[] }) => {
        calls.push(record.messages);
        return [];
      },
    };
    const stream = Array.from({ length: 1234 }, (_, i) => ({
      key: `k-${i % 97}`,
      value: String(i),
    }));
    await publishPerPartition(kafka, producer as never, {
      topic: 't',
      messages: stream,
      chunk: 100,
    });
    for (const call of calls) {
      assert.ok(call.length <= 100);
      assert.equal(new Set(call.map((m) => m.partition)).size, 1);
    }
    const sent = calls.flatMap((c) => c.map((m) => m.value));
    assert.deepEqual([...sent].sort(), stream.map((m) => m.value).sort());
    assert.equal(admin.connected, 0, 'the admin client is closed again');
  });

  it('refuses a topic the cluster has no partitions for, naming it', async () => {
    await assert.rejects(
      readPartitionCount({ fetchTopicMetadata: async () => ({ topics: [] }) } as never, 'nope'),
      /topic nope has no partitions/,
    );
  });
});
