import { strict as assert } from 'node:assert';
import { Client, Connection } from '@temporalio/client';
import { createClient } from '../../../../src/temporal/connection';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Kafka } from 'kafkajs';
import type pg from 'pg';
import { createPool } from '../../../../src/db/pool';
import { migrate } from '../../../../src/db/migrate';
import { migrations } from '../../../../src/db/migrations';
import { createKafka } from '../../../../src/kafka/kafka-client';
import { ensureTopics } from '../../../../src/kafka/topics';
import { createWorker } from '../../../../src/worker/create-worker';
import { DOMAINS } from '../../../../src/domains';
import { smokeCheck } from '../../../../src/workflows';
import { SEARCH_ATTRIBUTES } from '../../../../harness/stack/temporal';
import { waitFor } from '../../../../src/util/wait';
import { testConfig, uniqueName } from '../../../support/services';
import { workflowBundle } from '../../../support/workflow-bundle';

describe('local stack (real Temporal, Kafka, Postgres)', () => {
  const config = testConfig();
  let pool: pg.Pool;

  before(() => {
    pool = createPool(config.database);
  });
  after(async () => {
    await pool.end();
  });

  describe('PostgreSQL', () => {
    it('applies the versioned migrations once, then a query returns', async () => {
      const schema = uniqueName('smoke');
      const first = await migrate(pool, { schema });
      assert.deepEqual(
        first,
        migrations.map((m) => m.version),
      );
      assert.deepEqual(await migrate(pool, { schema }), [], 'a second run applies nothing');
      const { rows } = await pool.query<{ n: string }>(
        `SELECT count(*) AS n FROM ${schema}.processed_events`,
      );
      assert.equal(rows[0]!.n, '0');
    });

    it('serialises concurrent migrators so each version is applied once', async () => {
      const schema = uniqueName('race');
      const results = await Promise.all([migrate(pool, { schema }), migrate(pool, { schema })]);
      assert.deepEqual(results.flat().sort(), migrations.map((m) => m.version).sort());
    });
  });

  describe('Kafka', () => {
    let kafka: Kafka;
    before(() => {
      kafka = createKafka(config.kafka, 'smoke');
    });

    it('creates a topic with its DLQ and delivers a message to a consumer group', async () => {
      const topic = uniqueName('smoke');
      const created = await ensureTopics(kafka, { topics: [topic], partitions: 3 });
      assert.deepEqual(created.sort(), [topic, `${topic}.dlq`].sort());
      assert.deepEqual(await ensureTopics(kafka, { topics: [topic], partitions: 3 }), []);

      const producer = kafka.producer();
      const consumer = kafka.consumer({ groupId: uniqueName('smoke-group') });
      const received: string[] = [];
      await producer.connect();
      await consumer.connect();
      try {
        await consumer.subscribe({ topic, fromBeginning: true });
        await consumer.run({
          eachMessage: async ({ message }) => {
            received.push(message.value?.toString() ?? '');
          },
        });
        await producer.send({ topic, messages: [{ key: 'order-1', value: 'hello' }] });
        await waitFor(() => received.length > 0, { timeoutMs: 30_000, what: 'the message' });
        assert.deepEqual(received, ['hello']);
      } finally {
        await consumer.disconnect();
        await producer.disconnect();
      }
    });

    it('reports partitions as configured', async () => {
      const topic = uniqueName('parts');
      await ensureTopics(kafka, { topics: [topic], partitions: 4 });
      const admin = kafka.admin();
      await admin.connect();
      try {
        const meta = await admin.fetchTopicMetadata({ topics: [topic] });
        assert.equal(meta.topics[0]!.partitions.length, 4);
      } finally {
        await admin.disconnect();
      }
    });
  });

  describe('Temporal', () => {
    let connection: Connection;
    let client: Client;
    before(async () => {
      connection = await Connection.connect({ address: config.temporal.address });
      client = createClient(connection, config);
    });
    after(async () => {
      await connection.close();
    });

    it('executes a workflow through a real worker and activity', async () => {
      const taskQueue = uniqueName('smoke-tq');
      const schema = uniqueName('wf');
      await migrate(pool, { schema });
      const workerConnection = await NativeConnection.connect({ address: config.temporal.address });
      let worker: Worker | undefined;
      try {
        worker = await createWorker({
          domains: DOMAINS,
          connection: workerConnection,
          config,
          deps: { pool },
          taskQueue,
          workflowBundle: await workflowBundle(),
        });
        const result = await worker.runUntil(
          client.workflow.execute(smokeCheck, {
            taskQueue,
            workflowId: uniqueName('smoke-wf'),
            args: [{ schema }],
          }),
        );
        assert.match(result.postgresVersion, /^\d+\.\d+/);
        assert.equal(result.migrationVersion, migrations.at(-1)!.version);
      } finally {
        await workerConnection.close();
      }
    });

    it('has the Keyword search attributes the Web UI queries on', async () => {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({
        namespace: config.temporal.namespace,
      });
      for (const name of SEARCH_ATTRIBUTES) {
        assert.ok(customAttributes?.[name] !== undefined, `${name} is registered`);
      }
    });

    it('serves the Web UI', async () => {
      const res = await fetch(config.temporal.uiUrl);
      assert.equal(res.status, 200);
      assert.match(await res.text(), /<html/i);
    });
  });
});
