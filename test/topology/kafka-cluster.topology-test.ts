/**
 * ONCEFLOW_KAFKA_BROKERS=3: three brokers and a KRaft controller in a stack of their own.
 * Named *.topology-test.ts, not *.test.ts: `npm test` runs every *.test.ts, and these start a
 * second stack; `npm run test:production-topology` runs them.
 */
import { strict as assert } from 'node:assert';
import { ConfigResourceTypes, Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { ensureTopics } from '../../src/kafka/topics';
import { startKafkaBroker, stopKafkaBroker } from '../../harness/stack/restart';
import { isAlive } from '../../harness/stack/processes';
import { readStackState, type RunningStack } from '../../harness/stack/stack';
import { waitFor } from '../../src/util/wait';
import { uniqueName } from '../support/services';
import { envWithout, kafkaErrorTypes, leftoversOf, startTopologyStack } from './topology-stack';

const PARTITIONS = 3;

describe('stack option ONCEFLOW_KAFKA_BROKERS=3 (three brokers, one KRaft controller)', function () {
  let stack: RunningStack;
  let kafka: Kafka;
  let admin: Admin;
  let producer: Producer;
  const topic = uniqueName('replicated');
  /** Values the cluster acknowledged with acks=all; every one must be readable at the end. */
  const acked: string[] = [];

  before(async function () {
    this.timeout(10 * 60_000);
    // Temporal and Postgres are the runner's: this stack starts only Kafka.
    stack = await startTopologyStack(
      'kafka-cluster',
      envWithout(['KAFKA_BROKERS'], { ONCEFLOW_KAFKA_BROKERS: '3' }),
    );
    kafka = new Kafka({
      clientId: 'topology-test',
      brokers: stack.state.env.KAFKA_BROKERS.split(','),
      logLevel: logLevel.NOTHING,
    });
    admin = kafka.admin();
    await admin.connect();
    // No retries: each send is one attempt, so a refusal is seen as it is.
    producer = kafka.producer({ retry: { retries: 0 }, allowAutoTopicCreation: false });
    await producer.connect();
  });

  after(async () => {
    await producer?.disconnect();
    await admin?.disconnect();
    await stack?.stop();
  });

  /** One write per partition with acks=all; resolves when all were acknowledged. */
  async function writeEveryPartition(label: string, acks = -1): Promise<void> {
    const values = Array.from({ length: PARTITIONS }, (_, p) => `${label}-${p}`);
    await Promise.all(
      values.map((value, partition) =>
        producer.send({ topic, acks, timeout: 5000, messages: [{ partition, value }] }),
      ),
    );
    if (acks === -1) acked.push(...values);
  }

  async function partitionsOf(): Promise<{ leader: number; replicas: number[]; isr: number[] }[]> {
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    return topics[0]!.partitions;
  }

  it('runs four processes, and each of the three brokers answers on its own port', async () => {
    const brokers = stack.state.env.KAFKA_BROKERS.split(',');
    assert.equal(brokers.length, 3, 'KAFKA_BROKERS lists all three');
    assert.deepEqual(
      Object.keys(stack.state.pids).sort(),
      ['kafka-1', 'kafka-2', 'kafka-3', 'kafka-controller'],
      'the state file records every process (and nothing else: Temporal and Postgres are external)',
    );
    for (const address of brokers) {
      const one = new Kafka({ brokers: [address], logLevel: logLevel.NOTHING }).admin();
      await one.connect();
      try {
        const cluster = await one.describeCluster();
        assert.deepEqual(
          cluster.brokers.map((b) => b.nodeId).sort(),
          [1, 2, 3],
          `${address} knows the cluster`,
        );
        assert.ok(
          cluster.brokers.some((b) => `${b.host}:${b.port}` === address),
          `${address} is one of them`,
        );
      } finally {
        await one.disconnect();
      }
    }
  });

  it("gives setup's topics replication factor 3 and min.insync.replicas 2", async () => {
    await ensureTopics(kafka, { topics: [topic], partitions: PARTITIONS });
    for (const p of await partitionsOf()) {
      assert.equal(p.replicas.length, 3);
      assert.equal(p.isr.length, 3);
    }
    // A broker may not know a topic created a moment ago yet: asked again until all do.
    const resources = await waitFor(
      async () =>
        (
          await admin.describeConfigs({
            includeSynonyms: false,
            resources: [`${topic}`, `${topic}.dlq`].map((name) => ({
              type: ConfigResourceTypes.TOPIC,
              name,
              configNames: ['min.insync.replicas'],
            })),
          })
        ).resources,
      { timeoutMs: 30_000, what: `the configs of ${topic} and its DLQ` },
    );
    for (const r of resources) {
      assert.equal(r.configEntries[0]?.configValue, '2', `${r.resourceName} min.insync.replicas`);
    }
    await writeEveryPartition('all-up');
  });

  it('keeps the topic writable with acks=all after one broker is killed', async function () {
    this.timeout(120_000);
    await stopKafkaBroker(stack, 2, 'SIGKILL');
    assert.equal(stack.state.pids['kafka-2'], undefined, 'the dead broker leaves the state file');
    // Partitions it led move once the controller fences it (its session times out).
    await waitFor(
      async () => {
        await writeEveryPartition('one-down');
        return true;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'acks=all writes with broker 2 dead' },
    );
    for (const p of await partitionsOf()) {
      assert.notEqual(p.leader, 2, 'no partition is led by the dead broker');
      assert.ok(!p.isr.includes(2), 'the dead broker left every ISR');
      assert.equal(p.isr.length, 2);
    }
  });

  it('refuses acks=all writes with NOT_ENOUGH_REPLICAS after a second broker is killed', async function () {
    this.timeout(120_000);
    await stopKafkaBroker(stack, 3, 'SIGKILL');
    const refused = await waitFor(
      async () => {
        try {
          await producer.send({
            topic,
            acks: -1,
            timeout: 5000,
            messages: [{ partition: 0, value: 'x' }],
          });
          return false; // still accepted: broker 3 is not fenced yet
        } catch (err) {
          const types = kafkaErrorTypes(err);
          return types.some((t) => t.startsWith('NOT_ENOUGH_REPLICAS')) ? types : false;
        }
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'NOT_ENOUGH_REPLICAS with two brokers dead' },
    );
    assert.ok(refused.length > 0);
    // The last broker is alive and leads every partition: it is min.insync.replicas that
    // refuses, not a dead cluster. acks=1 still succeeds (and is not counted as acked).
    for (const p of await partitionsOf()) assert.equal(p.leader, 1);
    await writeEveryPartition('acks-1', 1);
  });

  it('accepts acks=all writes again once both are restarted, with every acked write kept', async function () {
    this.timeout(180_000);
    await startKafkaBroker(stack, 2);
    await startKafkaBroker(stack, 3);
    const recorded = readStackState(stack.paths)?.pids;
    for (const name of ['kafka-2', 'kafka-3'] as const) {
      const pid = stack.state.pids[name];
      assert.ok(pid !== undefined && isAlive(pid), `${name} runs again`);
      assert.equal(recorded?.[name], pid, `${name}'s new pid is in stack.json`);
    }
    await waitFor(async () => (await partitionsOf()).every((p) => p.isr.length === 3), {
      timeoutMs: 120_000,
      intervalMs: 500,
      what: 'every ISR back to three replicas',
    });
    await writeEveryPartition('restored');

    const seen = new Set<string>();
    const consumer = kafka.consumer({ groupId: uniqueName('topology-read') });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => void seen.add(message.value?.toString() ?? ''),
      });
      await waitFor(() => acked.every((v) => seen.has(v)), {
        timeoutMs: 60_000,
        what: `all ${acked.length} acknowledged writes read back`,
      });
    } finally {
      await consumer.disconnect();
    }
    assert.equal(acked.length, 3 * PARTITIONS);
  });

  it('stops every Kafka process and frees every port with the stack', async function () {
    this.timeout(120_000);
    await producer.disconnect();
    await admin.disconnect();
    await stack.stop();
    assert.deepEqual(await leftoversOf(stack), []);
  });
});
