import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { createClient } from '../../src/temporal/connection';
import type { Kafka, IHeaders } from 'kafkajs';
import pino from 'pino';
import type pg from 'pg';
import type { Config } from '../../src/config';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { createLedgerStore } from '../../src/db/ledger-store';
import { createKafka } from '../../src/kafka/kafka-client';
import { ensureTopics } from '../../src/kafka/topics';
import { startBridge, type RunningBridge } from '../../src/kafka-bridge/bridge';
import { DEFAULT_ROUTES } from '../../src/domains';
import type { KafkaRecord } from '../../src/events/event-message';
import { waitFor } from '../../src/util/wait';
import { testConfig, uniqueName } from './services';

/** Everything one bridge test owns: its own topic, group, task queue and ledger schema. */
export class BridgeHarness {
  readonly config: Config;
  readonly topic = uniqueName('orders');
  readonly groupId = uniqueName('bridge');
  readonly taskQueue = uniqueName('tq');
  readonly schema = uniqueName('ledger');
  readonly kafka: Kafka;
  pool!: pg.Pool;
  connection!: Connection;
  client!: Client;
  private bridges: RunningBridge[] = [];

  constructor(overrides: Partial<Config['bridge']> = {}) {
    const base = testConfig();
    this.config = { ...base, bridge: { ...base.bridge, metricsPort: 0, ...overrides } };
    // Rebalances in these tests are deliberate; their KafkaJS "errors" go to a silent logger.
    this.kafka = createKafka(
      this.config.kafka,
      'test',
      pino({ level: process.env.BRIDGE_TEST_LOG ?? 'silent' }),
    );
  }

  async setUp(partitions = 3): Promise<this> {
    this.pool = createPool(this.config.database);
    await migrate(this.pool, { schema: this.schema });
    await ensureTopics(this.kafka, { topics: [this.topic], partitions });
    this.connection = await Connection.connect({ address: this.config.temporal.address });
    this.client = createClient(this.connection, this.config);
    return this;
  }

  /** Starts an in-process bridge on this harness' topic; `client` lets a test route Temporal calls elsewhere. */
  async startBridge(options: { client?: Client; pool?: pg.Pool } = {}): Promise<RunningBridge> {
    const bridge = await startBridge({
      config: this.config,
      kafka: this.kafka,
      client: options.client ?? this.client,
      pool: options.pool ?? this.pool,
      log: pino({ level: process.env.BRIDGE_TEST_LOG ?? 'silent' }),
      routes: DEFAULT_ROUTES,
      ledgerSchema: this.schema,
      topics: [this.topic],
      groupId: this.groupId,
      taskQueue: this.taskQueue,
      backoff: { initialMs: 50, maxMs: 500 },
    });
    this.bridges.push(bridge);
    return bridge;
  }

  async produce(
    records:
      | KafkaRecord[]
      | Array<{ key: string | null; value: string | Buffer | null; headers?: IHeaders }>,
  ): Promise<void> {
    const producer = this.kafka.producer();
    await producer.connect();
    try {
      await producer.send({ topic: this.topic, acks: -1, messages: records });
    } finally {
      await producer.disconnect();
    }
  }

  /** Committed offset per partition of the source topic (-1 = nothing committed). */
  async committedOffsets(): Promise<Map<number, number>> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const [entry] = await admin.fetchOffsets({ groupId: this.groupId, topics: [this.topic] });
      return new Map(entry!.partitions.map((p) => [p.partition, Number(p.offset)]));
    } finally {
      await admin.disconnect();
    }
  }

  /** High watermark per partition (the offset a fully handled partition commits). */
  async endOffsets(): Promise<Map<number, number>> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(this.topic);
      return new Map(offsets.map((p) => [p.partition, Number(p.high)]));
    } finally {
      await admin.disconnect();
    }
  }

  /** Waits until every partition's committed offset reached its end. */
  async waitUntilAllCommitted(timeoutMs = 60_000): Promise<void> {
    const end = await this.endOffsets();
    await waitFor(
      async () => {
        const committed = await this.committedOffsets();
        return [...end].every(([p, high]) => high === 0 || committed.get(p) === high);
      },
      { timeoutMs, intervalMs: 250, what: `all offsets of ${this.topic} committed` },
    );
  }

  /** Every message on the DLQ topic so far. */
  async readDlq(
    expected: number,
    timeoutMs = 30_000,
  ): Promise<Array<{ key: string | null; value: string | null; headers: Record<string, string> }>> {
    const out: Array<{
      key: string | null;
      value: string | null;
      headers: Record<string, string>;
    }> = [];
    const consumer = this.kafka.consumer({ groupId: uniqueName('dlq-reader') });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: `${this.topic}.dlq`, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(message.headers ?? {})) {
            headers[k] = Array.isArray(v) ? String(v[0]) : String(v);
          }
          out.push({
            key: message.key?.toString() ?? null,
            value: message.value?.toString() ?? null,
            headers,
          });
        },
      });
      await waitFor(() => out.length >= expected, { timeoutMs, what: `${expected} DLQ messages` });
      return out;
    } finally {
      await consumer.disconnect();
    }
  }

  async ledgerCount(): Promise<number> {
    return (await createLedgerStore(this.pool, { schema: this.schema }).summarize()).rows;
  }

  /** Run ID of the workflow, or undefined if it does not exist. */
  async describe(workflowId: string) {
    try {
      return await this.client.workflow.getHandle(workflowId).describe();
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  }

  /** Stops bridges, terminates the workflows this test started (no worker runs them), closes clients. */
  async tearDown(): Promise<void> {
    await Promise.all(this.bridges.map((b) => b.stop().catch(() => undefined)));
    const workflowIds = await createLedgerStore(this.pool, { schema: this.schema })
      .listWorkflowIds()
      .catch(() => [] as string[]);
    await Promise.all(
      workflowIds.map((workflowId) =>
        this.client.workflow
          .getHandle(workflowId)
          .terminate('test cleanup')
          .catch(() => undefined),
      ),
    );
    await this.pool.end();
    await this.connection.close();
  }
}
