import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { createClient } from '../../src/temporal/connection';
import type { Kafka, IHeaders } from 'kafkajs';
import type pg from 'pg';
import type { Config } from '../../src/config';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { createLedgerStore } from '../../src/db/ledger-store';
import { createKafka } from '../../src/kafka/kafka-client';
import { ensureTopics } from '../../src/kafka/topics';
import { startBridge, type RunningBridge } from '../../src/kafka-bridge/bridge';
import { DEFAULT_ROUTES } from '../../src/domains';
import type { RouteTable } from '../../src/events/routes';
import type { KafkaRecord } from '../../src/events/event-message';
import { waitFor } from '../../src/util/wait';
import { dlqTopicOf } from '../../src/events/dlq-topic';
import { readTopicsToEnd } from '../../src/kafka/topic-reader';
import { testConfig, uniqueName } from './services';
import { testPinoLogger } from './test-log';

/** One record of a DLQ topic as a test reads it: headers as text (the first value of a repeat). */
export interface DlqRead {
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  /** The value as it is (a registry-encoded one is not text). */
  valueBytes: Buffer | null;
  headers: Record<string, string>;
}

/** Everything one bridge test owns: its own topic, group, task queue and ledger schema. */
export class BridgeHarness {
  readonly config: Config;
  readonly topic = uniqueName('orders');
  readonly groupId = uniqueName('bridge');
  readonly taskQueue = uniqueName('tq');
  readonly schema = uniqueName('ledger');
  get dlqTopic(): string {
    return dlqTopicOf(this.topic);
  }
  readonly kafka: Kafka;
  pool!: pg.Pool;
  connection!: Connection;
  client!: Client;
  private bridges: RunningBridge[] = [];

  constructor(overrides: Partial<Config['bridge']> = {}) {
    const base = testConfig();
    // No open-run caps: these bridges start runs no worker runs, which never close; a test
    // of admission sets its own.
    const uncapped = { total: 0, perTenant: 0, background: 0 };
    this.config = {
      ...base,
      bridge: { ...base.bridge, metricsPort: 0, openRuns: uncapped, ...overrides },
    };
    // Rebalances in these tests are deliberate: their KafkaJS "errors" go to the test log,
    // printed only when the test fails.
    this.kafka = createKafka(this.config.kafka, 'test', testPinoLogger('kafkajs'));
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
  async startBridge(
    options: {
      client?: Client;
      pool?: pg.Pool;
      routes?: RouteTable;
      config?: Config;
      /** The topics of routes that name none. Default: this harness' topic. */
      topics?: string[];
    } = {},
  ): Promise<RunningBridge> {
    const bridge = await startBridge({
      config: options.config ?? this.config,
      kafka: this.kafka,
      client: options.client ?? this.client,
      pool: options.pool ?? this.pool,
      log: testPinoLogger('bridge'),
      routes: options.routes ?? DEFAULT_ROUTES,
      ledgerSchema: this.schema,
      topics: options.topics ?? [this.topic],
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
      | Array<{
          key: string | null;
          value: string | Buffer | null;
          headers?: IHeaders;
          partition?: number;
        }>,
    topic = this.topic,
  ): Promise<void> {
    const producer = this.kafka.producer();
    await producer.connect();
    try {
      await producer.send({ topic, acks: -1, messages: records });
    } finally {
      await producer.disconnect();
    }
  }

  /** Committed offset per partition of the source topic (-1 = nothing committed). */
  async committedOffsets(topic = this.topic): Promise<Map<number, number>> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const [entry] = await admin.fetchOffsets({ groupId: this.groupId, topics: [topic] });
      return new Map(entry!.partitions.map((p) => [p.partition, Number(p.offset)]));
    } finally {
      await admin.disconnect();
    }
  }

  /** High watermark per partition (the offset a fully handled partition commits). */
  async endOffsets(topic = this.topic): Promise<Map<number, number>> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(topic);
      return new Map(offsets.map((p) => [p.partition, Number(p.high)]));
    } finally {
      await admin.disconnect();
    }
  }

  /** Waits until every partition's committed offset reached its end. */
  async waitUntilAllCommitted(timeoutMs = 60_000, topic = this.topic): Promise<void> {
    const end = await this.endOffsets(topic);
    await waitFor(
      async () => {
        const committed = await this.committedOffsets(topic);
        const short = [...end].filter(([p, high]) => high !== 0 && committed.get(p) !== high);
        if (short.length === 0) return true;
        // Thrown, not returned: a timeout then names where each partition stood.
        throw new Error(
          short
            .map(([p, high]) => `partition ${p} committed ${committed.get(p)} of ${high}`)
            .join(', '),
        );
      },
      { timeoutMs, intervalMs: 250, what: `all offsets of ${topic} committed` },
    );
  }

  /**
   * Every record of the DLQ topic, read to its end (the log end offsets when called), in
   * partition and offset order. Exact: it returns what is there, so a test that counts sees a
   * second write of the same poison. Call it once the writes are done, e.g. after
   * waitUntilAllCommitted (the bridge commits a poison message only after its DLQ write).
   */
  async readDlq(topic = this.topic): Promise<DlqRead[]> {
    const out: DlqRead[] = [];
    await readTopicsToEnd(
      this.kafka,
      [dlqTopicOf(topic)],
      (_topic, partition, message) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(message.headers ?? {})) {
          headers[k] = Array.isArray(v) ? String(v[0]) : String(v);
        }
        out.push({
          partition,
          offset: message.offset,
          key: message.key?.toString() ?? null,
          value: message.value?.toString() ?? null,
          valueBytes: message.value,
          headers,
        });
      },
      { groupId: uniqueName('dlq-reader'), timeoutMs: 30_000 },
    );
    return out.sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset));
  }

  /** Records on the DLQ topic now: the sum of its partitions' log end offsets (0 if absent). */
  async dlqSize(): Promise<number> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      if (!(await admin.listTopics()).includes(this.dlqTopic)) return 0;
      const offsets = await admin.fetchTopicOffsets(this.dlqTopic);
      return offsets.reduce((sum, p) => sum + Number(p.high) - Number(p.low), 0);
    } finally {
      await admin.disconnect();
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
