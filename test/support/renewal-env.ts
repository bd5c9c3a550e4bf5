import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { DOMAINS } from '../../src/domains';
import { createKafka } from '../../src/kafka/kafka-client';
import { ensureTopics } from '../../src/kafka/topics';
import { createClient } from '../../src/temporal/connection';
import { waitFor } from '../../src/util/wait';
import { createWorker } from '../../src/worker/create-worker';
import type { SagaStatus } from '../../src/workflows/saga-status';
import { EFFECTS_TABLE } from './domains/renewals/activities';
import { renewals } from './domains/renewals';
import { renewal, type RenewalData } from './domains/renewals/workflows';
import { createTestDatabase, type TestDatabase } from './providers';
import { eventInputOf } from './order-env';
import { testConfig, uniqueName } from './services';
import { workflowBundle } from './workflow-bundle';

/** A worker running the renewal test domain beside the registered ones, all its own. */
export interface RenewalEnv {
  db: TestDatabase;
  client: Client;
  taskQueue: string;
  /** The topic RenewalCharged is published to. */
  topic: string;
  start(data: RenewalData): Promise<WorkflowHandle<typeof renewal>>;
  /** Waits until the run's status says `predicate`. */
  until(
    h: WorkflowHandle,
    predicate: (s: SagaStatus) => boolean,
    what: string,
  ): Promise<SagaStatus>;
  /** The effects recorded under the run's subscription's keys, by key suffix. */
  effects(subscriptionId: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export async function createRenewalEnv(): Promise<RenewalEnv> {
  const config = testConfig();
  const db = await createTestDatabase('renewals');
  await db.pool.query(EFFECTS_TABLE);
  const topic = uniqueName('renewal-events');
  process.env.RENEWALS_TEST_TOPIC = topic;
  await ensureTopics(createKafka(config.kafka, 'test'), { topics: [topic], partitions: 1 });
  const taskQueue = uniqueName('renewals-tq');
  const domains = [...DOMAINS, renewals];
  const workerConnection = await NativeConnection.connect({ address: config.temporal.address });
  const worker: Worker = await createWorker({
    domains,
    connection: workerConnection,
    config,
    deps: { pool: db.pool },
    taskQueue,
    workflowBundle: await workflowBundle({ domains }),
  });
  const running = worker.run();
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = createClient(connection, config);
  return {
    db,
    client,
    taskQueue,
    topic,
    start: (data) =>
      client.workflow.start(renewal, {
        taskQueue,
        workflowId: uniqueName(`RenewalDue:${data.subscriptionId}`),
        args: [eventInputOf('RenewalDue', data.subscriptionId, data)],
      }),
    until: (h, predicate, what) =>
      waitFor(
        async () => {
          const s = await h.query<SagaStatus>('status');
          return predicate(s) ? s : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100, what },
      ),
    effects: async (subscriptionId) => {
      const { rows } = await db.pool.query<{ key: string; what: string }>(
        'SELECT key, what FROM effects WHERE key LIKE $1 ORDER BY key',
        [`renewal:${subscriptionId}:%`],
      );
      return Object.fromEntries(rows.map((r) => [r.key.split(':').pop()!, r.what]));
    },
    close: async () => {
      worker.shutdown();
      await running;
      await workerConnection.close();
      await connection.close();
      await db.pool.end();
      delete process.env.RENEWALS_TEST_TOPIC;
    },
  };
}
