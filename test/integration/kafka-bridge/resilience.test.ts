import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { createClient } from '../../../src/temporal/connection';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { TcpProxy } from '../../support/tcp-proxy';
import { exitOf, spawnBridge } from '../../support/child-bridge';
import type pg from 'pg';
import { createPool } from '../../../src/db/pool';

function orders(n: number) {
  return Array.from({ length: n }, () => {
    const orderId = `o-${randomUUID()}`;
    return buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId, { lines: 1 }),
    });
  });
}

async function metricSum(
  registryText: Promise<string>,
  name: string,
  label?: string,
): Promise<number> {
  return (await registryText)
    .split('\n')
    .filter((l) => l.startsWith(name) && (!label || l.includes(label)))
    .reduce((s, l) => s + Number(l.split(' ').at(-1)), 0);
}

/** Offsets per partition that have a ledger row, i.e. whose start is durable. */
async function ledgerOffsets(h: BridgeHarness): Promise<Map<number, Set<number>>> {
  const { rows } = await h.pool.query<{ p: number; o: string }>(
    `SELECT source_partition AS p, source_offset::text AS o FROM ${h.schema}.processed_events`,
  );
  const out = new Map<number, Set<number>>();
  for (const r of rows) {
    if (!out.has(r.p)) out.set(r.p, new Set());
    out.get(r.p)!.add(Number(r.o));
  }
  return out;
}

/** Every committed offset has every message before it started (ledger row written after start). */
async function assertCommitNeverAhead(h: BridgeHarness): Promise<Map<number, number>> {
  const committed = await h.committedOffsets();
  const started = await ledgerOffsets(h);
  const prefix = new Map<number, number>();
  for (const [partition, offset] of committed) {
    let n = 0;
    while (started.get(partition)?.has(n)) n++;
    prefix.set(partition, n);
    if (offset >= 0)
      assert.ok(
        offset <= n,
        `partition ${partition}: committed ${offset} but only ${n} started in order`,
      );
  }
  return prefix;
}

async function assertEachStartedOnce(h: BridgeHarness, expected: number): Promise<void> {
  assert.equal(await h.ledgerCount(), expected, 'one ledger row per identity');
  await waitFor(
    async () => (await h.client.workflow.count(`TaskQueue = '${h.taskQueue}'`)).count === expected,
    {
      timeoutMs: 30_000,
      what: `${expected} workflows in visibility`,
    },
  );
  const dlqEnd = await h.kafka.admin();
  await dlqEnd.connect();
  try {
    const offsets = await dlqEnd.fetchTopicOffsets(`${h.topic}.dlq`);
    assert.equal(
      offsets.reduce((s, p) => s + Number(p.high), 0),
      0,
      'nothing dead-lettered',
    );
  } finally {
    await dlqEnd.disconnect();
  }
}

describe('bridge: failures and restarts', () => {
  let h: BridgeHarness;
  /** Pools a test opened besides the harness' own; ended after the bridges stopped. */
  const extraPools: pg.Pool[] = [];
  afterEach(async () => {
    await h.tearDown();
    await Promise.all(extraPools.splice(0).map((p) => p.end()));
  });

  it('commits nothing and dead-letters nothing while Temporal is unreachable, then starts each event once', async () => {
    h = await new BridgeHarness().setUp(3);
    const [host, port] = h.config.temporal.address.split(':');
    const proxy = new TcpProxy(host!, Number(port));
    await proxy.open();
    const connection = await Connection.connect({ address: proxy.address });
    const client = createClient(connection, h.config);
    try {
      await proxy.cut();
      const bridge = await h.startBridge({ client });
      await h.produce(orders(30));
      await waitFor(
        async () =>
          (await metricSum(
            bridge.metrics.registry.metrics(),
            'onceflow_bridge_transient_retries_total',
            'temporal',
          )) >= 3,
        {
          timeoutMs: 60_000,
          what: 'start retries while Temporal is unreachable',
        },
      );
      const committed = await h.committedOffsets();
      assert.ok(
        [...committed.values()].every((o) => o === -1),
        `nothing committed: ${JSON.stringify([...committed])}`,
      );
      assert.equal(await h.ledgerCount(), 0);

      await proxy.open();
      await h.waitUntilAllCommitted(120_000);
      await assertEachStartedOnce(h, 30);
      assert.equal(
        await metricSum(bridge.metrics.registry.metrics(), 'onceflow_bridge_dlq_total'),
        0,
      );
    } finally {
      await proxy.cut();
      await connection.close();
    }
  });

  it('commits nothing and dead-letters nothing while Postgres (the ledger) is unreachable, then starts each event once', async () => {
    h = await new BridgeHarness().setUp(3);
    const url = new URL(h.config.database.url);
    const proxy = new TcpProxy(url.hostname, Number(url.port));
    await proxy.open();
    url.port = String(proxy.port);
    const ledgerPool = createPool(
      { ...h.config.database, url: url.toString() },
      { schema: h.schema },
    );
    extraPools.push(ledgerPool);
    try {
      await proxy.cut();
      const bridge = await h.startBridge({ pool: ledgerPool });
      await h.produce(orders(20));
      await waitFor(
        async () =>
          (await metricSum(
            bridge.metrics.registry.metrics(),
            'onceflow_bridge_transient_retries_total',
            'postgres',
          )) >= 3,
        { timeoutMs: 60_000, what: 'ledger retries while Postgres is unreachable' },
      );
      const committed = await h.committedOffsets();
      assert.ok(
        [...committed.values()].every((o) => o === -1),
        `nothing committed: ${JSON.stringify([...committed])}`,
      );
      await proxy.open();
      await h.waitUntilAllCommitted(120_000);
      await assertEachStartedOnce(h, 20);
      assert.equal(
        await metricSum(bridge.metrics.registry.metrics(), 'onceflow_bridge_dlq_total'),
        0,
      );
    } finally {
      await proxy.cut();
    }
  });

  it('survives SIGKILL mid-batch: never commits ahead of a start, and a restart starts every event exactly once', async () => {
    h = await new BridgeHarness().setUp(3);
    await h.produce(orders(300));
    // The group holds a killed member's partitions for its session; the broker's minimum keeps
    // the wait for the restarted bridge short (and proves the setting reaches the consumer).
    const first = spawnBridge(h, {
      BRIDGE_START_CONCURRENCY: '2',
      BRIDGE_SESSION_TIMEOUT_MS: '6000',
    });
    await waitFor(async () => (await h.ledgerCount()) >= 60, {
      timeoutMs: 60_000,
      what: 'some starts',
    });
    first.kill('SIGKILL');
    assert.equal(await exitOf(first), 'SIGKILL');
    assert.ok((await h.ledgerCount()) < 300, 'killed mid-way');
    await assertCommitNeverAhead(h);

    const second = spawnBridge(h);
    try {
      await h.waitUntilAllCommitted(120_000);
      await assertCommitNeverAhead(h);
      await assertEachStartedOnce(h, 300);
    } finally {
      second.kill('SIGTERM');
      assert.equal(await exitOf(second), 0, second.output());
    }
  });

  it('exits 0 on SIGTERM after committing exactly the handled prefix', async () => {
    h = await new BridgeHarness().setUp(3);
    await h.produce(orders(200));
    const child = spawnBridge(h, { BRIDGE_START_CONCURRENCY: '2' });
    await waitFor(async () => (await h.ledgerCount()) >= 40, {
      timeoutMs: 60_000,
      what: 'some starts',
    });
    child.kill('SIGTERM');
    assert.equal(await exitOf(child), 0, child.output());
    const prefix = await assertCommitNeverAhead(h);
    const committed = await h.committedOffsets();
    for (const [partition, n] of prefix) {
      if (n > 0)
        assert.equal(
          committed.get(partition),
          n,
          `partition ${partition} committed its handled prefix`,
        );
    }
  });

  it('keeps one workflow per identity while two bridges in one group rebalance under load', async () => {
    h = await new BridgeHarness().setUp(6);
    await h.produce(orders(400));
    const a = await h.startBridge();
    await waitFor(async () => (await h.ledgerCount()) >= 80, {
      timeoutMs: 60_000,
      what: 'bridge A under way',
    });
    const b = await h.startBridge();
    await waitFor(async () => (await h.ledgerCount()) >= 200, {
      timeoutMs: 60_000,
      what: 'both bridges under way',
    });
    await a.stop();
    await h.waitUntilAllCommitted(120_000);
    await assertEachStartedOnce(h, 400);
    const started =
      (await metricSum(a.metrics.registry.metrics(), 'onceflow_bridge_started_total')) +
      (await metricSum(b.metrics.registry.metrics(), 'onceflow_bridge_started_total'));
    assert.equal(started, 400, 'each identity started once across both instances');
  });
});
