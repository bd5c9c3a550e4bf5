import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderCancelled, sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { exitOf, spawnBridge } from '../../support/child-bridge';

/**
 * A flood of tenant A's orders, each followed by its cancellation (version 2 of the same
 * aggregate, on its key), with tenant B's orders among them: the scheduler reads past A's
 * records, so key order is what keeps each cancellation behind its order; were it broken, the
 * order would arrive after its cancellation and be dead-lettered stale-version.
 */
function flood(aggregates: number, quietEvery = 20) {
  const out: ReturnType<typeof buildEventMessage>[] = [];
  for (let i = 0; i < aggregates; i++) {
    const tenant = i % quietEvery === 0 ? 'tenant-b' : 'tenant-a';
    const orderId = `o-${randomUUID()}`;
    out.push(
      buildEventMessage({
        eventType: 'OrderPlaced',
        aggregateId: orderId,
        aggregateVersion: 1,
        data: sampleOrderPlaced(orderId, { lines: 1, merchantId: tenant }),
      }),
    );
    if (tenant === 'tenant-a')
      out.push(
        buildEventMessage({
          eventType: 'OrderCancelled',
          aggregateId: orderId,
          aggregateVersion: 2,
          data: sampleOrderCancelled(orderId),
        }),
      );
  }
  return out;
}

/** `n` orders of `tenant`, one aggregate each. */
function ordersOf(tenant: string, n: number) {
  return Array.from({ length: n }, () => {
    const orderId = `o-${randomUUID()}`;
    return buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId, { lines: 1, merchantId: tenant }),
    });
  });
}

/** Every identity has one ledger row and one run, and nothing went to the DLQ. */
async function assertOneRunEach(h: BridgeHarness, identities: number): Promise<void> {
  assert.equal(await h.ledgerCount(), identities, 'one ledger row per identity');
  await waitFor(
    async () =>
      (await h.client.workflow.count(`TaskQueue = '${h.taskQueue}'`)).count === identities,
    { timeoutMs: 60_000, what: `${identities} runs in visibility, one per identity` },
  );
  assert.equal(await h.dlqSize(), 0, 'nothing dead-lettered: no cancellation passed its order');
}

describe('bridge: the scheduler under a flood (real Kafka, Temporal, Postgres)', function () {
  this.timeout(300_000);
  let h: BridgeHarness;
  afterEach(async () => {
    await h?.tearDown();
  });

  it('killed mid-flood with a small read-ahead window: the restart starts the rest, one run per identity, key order kept', async () => {
    h = await new BridgeHarness().setUp(3);
    const events = flood(300);
    await h.produce(events);
    const env = {
      BRIDGE_WINDOW_RECORDS: '40',
      BRIDGE_START_CONCURRENCY: '8',
      BRIDGE_SESSION_TIMEOUT_MS: '6000',
    };
    const first = spawnBridge(h, env);
    await waitFor(async () => (await h.ledgerCount()) >= 150, {
      timeoutMs: 120_000,
      what: 'the flood under way',
    });
    first.kill('SIGKILL');
    assert.equal(await exitOf(first), 'SIGKILL');
    assert.ok((await h.ledgerCount()) < events.length, 'killed mid-flood');
    const second = spawnBridge(h, env);
    try {
      await h.waitUntilAllCommitted(180_000);
      await assertOneRunEach(h, events.length);
    } finally {
      second.kill('SIGTERM');
      assert.equal(await exitOf(second), 0, second.output());
    }
  });

  it('a second bridge joins mid-flood (a rebalance): nothing lost, one run per identity, key order kept', async () => {
    // Two starts at a time: the flood lasts long enough for the newcomer's join.
    h = await new BridgeHarness({
      window: { records: 60, bytes: 1 << 20 },
      startConcurrency: 2,
    }).setUp(4);
    const events = flood(400);
    await h.produce(events);
    // Every start's span, by workflow ID: a cancellation must begin after its order's ended.
    const spans = new Map<string, { begin: number; end?: number }>();
    // Until the newcomer is in the group, each start is held a little (a pace, not a wait for
    // anything): on a quiet machine the flood would otherwise be over before the join is.
    let joined = false;
    const start = h.client.workflow.start.bind(h.client.workflow);
    h.client.workflow.start = (async (...args: Parameters<typeof start>) => {
      if (!joined) await new Promise((resolve) => setTimeout(resolve, 100));
      const span: { begin: number; end?: number } = { begin: performance.now() };
      spans.set(args[1].workflowId, span);
      try {
        return await start(...args);
      } finally {
        span.end = performance.now();
      }
    }) as typeof start;
    const a = await h.startBridge();
    await waitFor(async () => (await h.ledgerCount()) >= 100, {
      timeoutMs: 120_000,
      what: 'bridge A under way',
    });
    const b = await h.startBridge();
    await waitFor(async () => (await stableMembers(h)) === 2, {
      timeoutMs: 60_000,
      what: 'the newcomer in the group, partitions assigned',
    });
    joined = true;
    assert.ok((await h.ledgerCount()) < events.length, 'the flood still under way at the join');
    await h.waitUntilAllCommitted(180_000);
    await assertOneRunEach(h, events.length);
    const started = async (bridge: typeof a) =>
      (await bridge.metrics.started.get()).values.reduce((s, v) => s + v.value, 0);
    assert.equal((await started(a)) + (await started(b)), events.length, 'each started once');
    assert.ok((await started(b)) > 0, 'the newcomer took partitions over');
    let checked = 0;
    for (const [id, cancel] of spans) {
      if (!id.startsWith('OrderCancelled:')) continue;
      const order = spans.get(id.replace('OrderCancelled:', 'OrderPlaced:').replace('@2', '@1'));
      assert.ok(
        order?.end !== undefined && order.end <= cancel.begin,
        `${id} began before its order's start ended`,
      );
      checked++;
    }
    assert.ok(checked >= 380, `${checked} cancellations checked`);
  });
});

describe('bridge: admission by open runs, read from visibility (real Temporal)', function () {
  this.timeout(180_000);
  let h: BridgeHarness;
  afterEach(async () => {
    await h?.tearDown();
  });

  it("a tenant at its cap waits while another starts; its runs' closes let the rest start", async () => {
    h = await new BridgeHarness({
      openRuns: { total: 0, perTenant: 4, background: 0 },
      openRunsPollMs: 1000,
    }).setUp(2);
    const bridge = await h.startBridge();
    await h.produce(ordersOf('tenant-a', 10));
    const open = async () =>
      (
        await h.client.workflow.count(
          `TaskQueue = '${h.taskQueue}' AND ExecutionStatus = 'Running'`,
        )
      ).count;
    await waitFor(async () => (await h.ledgerCount()) === 4, {
      timeoutMs: 60_000,
      what: "four of tenant A's ten orders started (its cap)",
    });
    await h.produce(ordersOf('tenant-b', 1));
    await waitFor(async () => (await h.ledgerCount()) === 5, {
      timeoutMs: 60_000,
      what: "tenant B's order started beside A's capped ones",
    });
    assert.equal(await h.ledgerCount(), 5, 'A still waits at its cap');
    await waitFor(async () => (await open()) === 5, { timeoutMs: 30_000, what: '5 runs open' });
    // A's runs close (as a worker would close them): visibility lists them, A goes on.
    for await (const run of h.client.workflow.list({ query: `TaskQueue = '${h.taskQueue}'` }))
      await h.client.workflow.getHandle(run.workflowId).terminate('the test closes it');
    await waitFor(async () => (await h.ledgerCount()) >= 9, {
      timeoutMs: 60_000,
      what: "A's next four orders started once its runs closed",
    });
    await bridge.stop();
  });
});

/** Members of the harness' group once it is stable (assignments made), else 0. */
async function stableMembers(h: BridgeHarness): Promise<number> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    const [group] = (await admin.describeGroups([h.groupId])).groups;
    return group?.state === 'Stable' ? group.members.length : 0;
  } finally {
    await admin.disconnect();
  }
}
