import { strict as assert } from 'node:assert';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type pg from 'pg';
import { createLedgerStore } from '../../../src/db/ledger-store';
import { ensureTopics } from '../../../src/kafka/topics';
import { SEARCH_ATTRIBUTE } from '../../../src/temporal/search-attributes';
import { createClient } from '../../../src/temporal/connection';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { LedgerRole } from '../../support/pg-roles';
import { uniqueName } from '../../support/services';
import {
  orders,
  WatchedBridge,
  dlqSize,
  assertStalled,
  assertEachStartedOnce,
} from './environment-faults-helpers';

describe('bridge: Temporal’s and the DLQ’s faults stall and alert; every order starts once after the fix', () => {
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
