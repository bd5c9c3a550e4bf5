import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type pg from 'pg';
import pino from 'pino';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { createLedgerStore } from '../../../src/db/ledger-store';
import { qualifyTable, quoteSchema } from '../../../src/config/schema-name';
import { ensureTopics } from '../../../src/kafka/topics';
import { startBridge, type RunningBridge } from '../../../src/kafka-bridge/bridge';
import { DEFAULT_ROUTES } from '../../../src/domains';
import { SEARCH_ATTRIBUTE } from '../../../src/temporal/search-attributes';
import { createClient } from '../../../src/temporal/connection';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { LedgerRole } from '../../support/pg-roles';
import { uniqueName } from '../../support/services';

function orders(n: number, partition?: number) {
  return Array.from({ length: n }, () => {
    const orderId = `o-${randomUUID()}`;
    const record = buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId, { lines: 1 }),
    });
    return partition === undefined ? record : { ...record, partition };
  });
}

interface LogLine {
  level: number;
  msg: string;
  fault?: string;
}

/** A bridge on the harness' topic whose log lines the test reads. */
class WatchedBridge {
  readonly lines: LogLine[] = [];
  bridge!: RunningBridge;

  constructor(private readonly h: BridgeHarness) {}

  async start(options: { client?: Client; pool?: pg.Pool } = {}): Promise<this> {
    const log = pino(
      { level: 'info' },
      { write: (line: string) => this.lines.push(JSON.parse(line) as LogLine) },
    );
    this.bridge = await startBridge({
      config: this.h.config,
      kafka: this.h.kafka,
      client: options.client ?? this.h.client,
      pool: options.pool ?? this.h.pool,
      log,
      routes: DEFAULT_ROUTES,
      ledgerSchema: this.h.schema,
      topics: [this.h.topic],
      groupId: this.h.groupId,
      taskQueue: this.h.taskQueue,
      backoff: { initialMs: 50, maxMs: 500 },
    });
    return this;
  }

  private async counter(name: string, labels: Record<string, string>): Promise<number> {
    const metric = this.bridge.metrics.registry.getSingleMetric(name);
    const { values } = await metric!.get();
    return values
      .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
      .reduce((s, v) => s + v.value, 0);
  }

  failedTries = (dependency: string) =>
    this.counter('onceflow_bridge_failed_attempts_total', { dependency });
  retries = (dependency: string, fault: string) =>
    this.counter('onceflow_bridge_transient_retries_total', { dependency, fault });
  deadLettered = () => this.counter('onceflow_bridge_dlq_total', {});

  /** Error lines that name this fault. */
  advice(fault: string): LogLine[] {
    return this.lines.filter((l) => l.level === 50 && l.fault === fault);
  }
}

/** End offsets of the DLQ topic summed (0 when it has no records). */
async function dlqSize(h: BridgeHarness): Promise<number> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(`${h.topic}.dlq`);
    return offsets.reduce((s, p) => s + Number(p.high), 0);
  } finally {
    await admin.disconnect();
  }
}

interface Stall {
  dependency: 'postgres' | 'temporal' | 'dlq';
  fault: string;
  /** What the error line must say (the fix). */
  fix: RegExp;
  /** Committed offsets when the fault began; none may move while it lasts. */
  committed: Map<number, number>;
  /** Ledger rows when the fault began. */
  ledgerRows: number;
  /** Counts the ledger's rows. Default: the harness' count. */
  countRows?: () => Promise<number>;
}

/**
 * The partition stalls: more failed tries than the 3 a message's own fault gets, nothing
 * dead-lettered, nothing committed past the waiting messages, no ledger row added, the
 * alert's counter rising for this dependency and fault, an error line naming the fix.
 */
async function assertStalled(h: BridgeHarness, w: WatchedBridge, stall: Stall): Promise<void> {
  await waitFor(async () => (await w.failedTries(stall.dependency)) >= 8, {
    timeoutMs: 90_000,
    what: `8 failed tries on ${stall.dependency}`,
  });
  assert.equal(await w.deadLettered(), 0, 'nothing dead-lettered (the environment’s fault)');
  assert.equal(await dlqSize(h).catch(() => 0), 0, 'the DLQ topic is empty');
  assert.deepEqual(await h.committedOffsets(), stall.committed, 'nothing committed meanwhile');
  assert.equal(
    await (stall.countRows ?? (() => h.ledgerCount()))(),
    stall.ledgerRows,
    'no ledger row added meanwhile',
  );
  assert.ok(
    (await w.retries(stall.dependency, stall.fault)) >= 3,
    `onceflow_bridge_transient_retries_total{dependency="${stall.dependency}",fault="${stall.fault}"} rises`,
  );
  const advice = w.advice(stall.fault);
  assert.ok(advice.length > 0, `an error line for ${stall.fault}`);
  assert.match(advice[0]!.msg, stall.fix);
}

/** After the fix: every offset committed, one ledger row and one workflow per order, no DLQ. */
async function assertEachStartedOnce(
  h: BridgeHarness,
  w: WatchedBridge,
  expected: number,
  client: Client = h.client,
): Promise<void> {
  await h.waitUntilAllCommitted(120_000);
  assert.equal(await h.ledgerCount(), expected, 'one ledger row per order');
  await waitFor(
    async () => (await client.workflow.count(`TaskQueue = '${h.taskQueue}'`)).count === expected,
    { timeoutMs: 30_000, what: `${expected} workflows in visibility` },
  );
  assert.equal(await w.deadLettered(), 0, 'nothing dead-lettered');
  assert.equal(await dlqSize(h), 0, 'the DLQ topic is empty');
}

describe('bridge: the environment’s faults stall and alert; every order starts once after the fix', () => {
  let h: BridgeHarness;
  let w: WatchedBridge;
  let role: LedgerRole | undefined;
  let cleanup: Array<() => Promise<unknown>> = [];

  afterEach(async () => {
    await w.bridge?.stop().catch(() => undefined);
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    cleanup = [];
    await role?.drop().catch(() => undefined);
    role = undefined;
    await h.tearDown();
  });

  /** Orders A are handled before the fault, B during it, C after the fix. */
  async function beforeFault(pool?: pg.Pool): Promise<{
    committed: Map<number, number>;
    ledgerRows: number;
  }> {
    w = await new WatchedBridge(h).start({ pool });
    await h.produce(orders(6));
    await h.waitUntilAllCommitted(60_000);
    return { committed: await h.committedOffsets(), ledgerRows: await h.ledgerCount() };
  }

  it('a revoked INSERT grant (42501): stalls, names the GRANT, and goes on once granted back', async () => {
    h = await new BridgeHarness().setUp(3);
    role = await new LedgerRole(h.config.database, h.schema).create();
    const before = await beforeFault(role.pool);
    await role.operator('REVOKE INSERT ON %table FROM %role');
    await h.produce(orders(6));
    await assertStalled(h, w, {
      dependency: 'postgres',
      fault: 'permission',
      fix: new RegExp(
        `^Postgres refused INSERT on ${h.schema}\\.processed_events: .*permission denied.*\\(42501\\)\\. Grant the bridge's role ${role.name}: .*GRANT SELECT, INSERT ON ${h.schema}\\.processed_events`,
      ),
      ...before,
    });
    await role.operator('GRANT INSERT ON %table TO %role');
    await h.produce(orders(6));
    await assertEachStartedOnce(h, w, 18);
  });

  it('a role that may no longer log in (28000): stalls as authentication, goes on once it may', async () => {
    h = await new BridgeHarness().setUp(3);
    role = await new LedgerRole(h.config.database, h.schema).create();
    const before = await beforeFault(role.pool);
    await role.operator('ALTER ROLE %role NOLOGIN');
    await role.endSessions();
    await h.produce(orders(6));
    await assertStalled(h, w, {
      dependency: 'postgres',
      fault: 'authentication',
      fix: /\(28000\)\. Postgres refused the bridge's login/,
      ...before,
    });
    await role.operator('ALTER ROLE %role LOGIN');
    await h.produce(orders(6));
    await assertEachStartedOnce(h, w, 18);
  });

  it('the ledger table renamed away (42P01): stalls, names the migrations, goes on once it is back', async () => {
    h = await new BridgeHarness().setUp(3);
    const before = await beforeFault();
    const table = qualifyTable(h.schema, 'processed_events');
    await h.pool.query(`ALTER TABLE ${table} RENAME TO processed_events_away`);
    cleanup.push(() =>
      h.pool.query(
        `ALTER TABLE ${qualifyTable(h.schema, 'processed_events_away')} RENAME TO processed_events`,
      ),
    );
    await h.produce(orders(6));
    await assertStalled(h, w, {
      dependency: 'postgres',
      fault: 'schema-missing',
      fix: new RegExp(`\\(42P01\\)\\. .*run the migrations against DATABASE_SCHEMA=${h.schema}`),
      ...before,
      countRows: async () =>
        Number(
          (
            await h.pool.query<{ n: string }>(
              `SELECT count(*) AS n FROM ${qualifyTable(h.schema, 'processed_events_away')}`,
            )
          ).rows[0]!.n,
        ),
    });
    await cleanup.pop()!();
    await h.produce(orders(6));
    await assertEachStartedOnce(h, w, 18);
  });

  it('a read-only database for the bridge’s new sessions (25006): stalls, goes on once writable, on fresh connections', async () => {
    h = await new BridgeHarness().setUp(3);
    role = await new LedgerRole(h.config.database, h.schema).create();
    const before = await beforeFault(role.pool);
    // As after a failover onto a standby: the sessions end, the new ones refuse writes. Set
    // on the test's own role rather than ALTER DATABASE: same effect on the bridge's new
    // sessions, nothing else on the shared database affected.
    await role.operator('ALTER ROLE %role SET default_transaction_read_only = on');
    await role.endSessions();
    await h.produce(orders(6));
    await assertStalled(h, w, {
      dependency: 'postgres',
      fault: 'read-only',
      fix: /\(25006\)\. Postgres refuses writes/,
      ...before,
    });
    // No session is ended this time: the bridge must drop its read-only connections itself.
    await role.operator('ALTER ROLE %role RESET default_transaction_read_only');
    await h.produce(orders(6));
    await assertEachStartedOnce(h, w, 18);
  });

  it('a full disk (53100 from a trigger): stalls, names the disk, goes on once the fault is gone', async () => {
    h = await new BridgeHarness().setUp(3);
    const before = await beforeFault();
    const schema = quoteSchema(h.schema);
    // The real Postgres raises SQLSTATE 53100 on the ledger INSERT, with the message it uses
    // when it cannot extend a file, through the real driver; dropping the trigger plays the
    // operator freeing space. This proves the bridge's handling of the error Postgres sends
    // for a full disk; it does not fill a disk: on a real one reads may still work or not,
    // and a full WAL volume makes Postgres stop, which the bridge sees as unavailable.

    await h.pool.query(`
      CREATE FUNCTION ${schema}.fail_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'could not extend file "base/16384/16385": No space left on device'
          USING ERRCODE = 'disk_full', HINT = 'Check free disk space.';
      END $$`);
    await h.pool.query(`
      CREATE TRIGGER disk_full BEFORE INSERT ON ${schema}.processed_events
      FOR EACH ROW EXECUTE FUNCTION ${schema}.fail_disk_full()`);
    const dropTrigger = () =>
      h.pool.query(`DROP TRIGGER IF EXISTS disk_full ON ${schema}.processed_events`);
    cleanup.push(dropTrigger);
    await h.produce(orders(6));
    await assertStalled(h, w, {
      dependency: 'postgres',
      fault: 'disk-full',
      fix: /No space left on device.*\(53100\)\. The database server's disk is full/,
      ...before,
    });
    await dropTrigger();
    await h.produce(orders(6));
    await assertEachStartedOnce(h, w, 18);
  });

  it('a Temporal namespace that does not exist yet: stalls, then without search attributes, then starts each order once', async function () {
    this.timeout(300_000);
    h = await new BridgeHarness().setUp(3);
    const namespace = uniqueName('ns').replaceAll('_', '-');
    const client = createClient(h.connection, {
      ...h.config,
      temporal: { ...h.config.temporal, namespace },
    });
    w = await new WatchedBridge(h).start({ client });
    await h.produce(orders(6));
    const nothingYet = await h.committedOffsets();
    await assertStalled(h, w, {
      dependency: 'temporal',
      fault: 'namespace-missing',
      fix: new RegExp(`temporal operator namespace create --namespace ${namespace}`),
      committed: nothingYet,
      ledgerRows: 0,
    });

    // The operator creates the namespace but forgets the search attributes the bridge sets.
    await h.connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs('1 day'),
    });
    cleanup.push(() => h.connection.operatorService.deleteNamespace({ namespace }));
    await h.produce(orders(6));
    await waitFor(async () => (await w.retries('temporal', 'search-attributes-missing')) >= 3, {
      timeoutMs: 120_000,
      what: 'the bridge to find the namespace and miss its search attributes',
    });
    assert.equal(
      await w.deadLettered(),
      0,
      'an unregistered search attribute is not the message’s',
    );
    assert.deepEqual(await h.committedOffsets(), nothingYet);
    assert.match(
      w.advice('search-attributes-missing')[0]!.msg,
      new RegExp(`search-attribute create --namespace ${namespace} --name EntityId --type Keyword`),
    );

    const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
    await h.connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(
        Object.values(SEARCH_ATTRIBUTE).map((key) => [key.name, keyword]),
      ),
    });
    cleanup.push(async () => {
      const ids = await createLedgerStore(h.pool, { schema: h.schema }).listWorkflowIds();
      await Promise.all(ids.map((id) => client.workflow.getHandle(id).terminate('test cleanup')));
    });
    await h.produce(orders(6));
    await assertEachStartedOnce(h, w, 18, client);
  });

  it('a missing DLQ topic: the poison waits (topic-missing) with its partition, lands once when the topic is back', async () => {
    h = await new BridgeHarness().setUp(3);
    const before = await beforeFault();
    const admin = h.kafka.admin();
    await admin.connect();
    cleanup.push(() => admin.disconnect());
    await admin.deleteTopics({ topics: [`${h.topic}.dlq`] });
    await waitFor(async () => !(await admin.listTopics()).includes(`${h.topic}.dlq`), {
      timeoutMs: 30_000,
      what: 'the DLQ topic deleted',
    });
    // Partition 0: a poison message, then orders behind it; partitions 1-2: orders only.
    const behind = orders(3, 0);
    await h.produce([
      { key: 'poison', value: 'not json', partition: 0 },
      ...behind,
      ...orders(3, 1),
      ...orders(3, 2),
    ] as never);
    await waitFor(async () => (await w.retries('dlq', 'topic-missing')) >= 3, {
      timeoutMs: 90_000,
      what: 'DLQ write retries on the missing topic',
    });
    // Orders of other keys go on, also behind the poison in its partition (keys are handled
    // concurrently); the committed offset of partition 0 stays at the poison.
    await waitFor(async () => (await h.ledgerCount()) === before.ledgerRows + 9, {
      timeoutMs: 60_000,
      what: 'every valid order started',
    });
    const committed = await h.committedOffsets();
    const ends = await h.endOffsets();
    assert.equal(committed.get(0), before.committed.get(0), 'partition 0 waits at the poison');
    assert.equal(committed.get(1), ends.get(1), 'partition 1 went on');
    assert.equal(committed.get(2), ends.get(2), 'partition 2 went on');
    assert.equal(await w.deadLettered(), 0);
    assert.match(
      w.advice('topic-missing')[0]!.msg,
      new RegExp(`^Kafka refused the DLQ write to ${h.topic}\\.dlq: .*Create ${h.topic}\\.dlq`),
    );
    assert.ok(
      !(await admin.listTopics()).includes(`${h.topic}.dlq`),
      'the bridge did not create the DLQ topic with broker defaults',
    );

    await ensureTopics(h.kafka, { topics: [h.topic], partitions: 3 });
    await h.waitUntilAllCommitted(120_000);
    assert.equal(await h.ledgerCount(), before.ledgerRows + 9, 'each order started once');
    await waitFor(
      async () =>
        (await h.client.workflow.count(`TaskQueue = '${h.taskQueue}'`)).count ===
        before.ledgerRows + 9,
      { timeoutMs: 30_000, what: 'one workflow per order in visibility' },
    );
    assert.equal(await w.deadLettered(), 1);
    assert.equal(await dlqSize(h), 1, 'the poison message is in the DLQ once');
  });
});
