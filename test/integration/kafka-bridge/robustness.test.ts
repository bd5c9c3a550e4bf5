import { strict as assert } from 'node:assert';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { createPool } from '../../../src/db/pool';
import { clientConnectionOptions } from '../../../src/temporal/connection';
import type { RunningBridge } from '../../../src/kafka-bridge/bridge';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { TcpProxy } from '../../support/tcp-proxy';

function order(orderId = `o-${randomUUID()}`) {
  return buildEventMessage({
    eventType: 'OrderPlaced',
    aggregateId: orderId,
    aggregateVersion: 1,
    data: sampleOrderPlaced(orderId, { lines: 1 }),
  });
}

async function counter(
  bridge: RunningBridge,
  name: 'transientRetries' | 'started' | 'dlq' | 'duplicates',
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await bridge.metrics[name].get();
  return values
    .filter((v) =>
      Object.entries(labels).every(
        ([k, want]) => (v.labels as Record<string, unknown>)[k] === want,
      ),
    )
    .reduce((s, v) => s + v.value, 0);
}

describe('bridge: no hung dependency can stop it (real Kafka, Temporal, Postgres)', function () {
  this.timeout(240_000);
  let h: BridgeHarness;
  const cleanups: Array<() => Promise<unknown>> = [];

  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!().catch(() => undefined);
    await h?.tearDown();
  });

  it('a locked ledger table is a retried statement timeout: heartbeats go on, stop() returns, and the events start after the lock', async () => {
    h = await new BridgeHarness({ sessionTimeoutMs: 6000 }).setUp(1);
    const statementTimeoutMs = 1000;
    const bridgePool = createPool({ ...h.config.database, statementTimeoutMs });
    cleanups.push(() => bridgePool.end());
    const locker = new pg.Client({ connectionString: h.config.database.url });
    await locker.connect();
    cleanups.push(() => locker.end());
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${h.schema}.processed_events IN ACCESS EXCLUSIVE MODE`);
    let locked = true;
    cleanups.push(async () => {
      if (locked) await locker.query('ROLLBACK');
    });

    const first = await h.startBridge({ pool: bridgePool });
    await h.produce([order(), order(), order()]);
    await waitFor(
      async () => (await counter(first, 'transientRetries', { dependency: 'postgres' })) >= 3,
      {
        timeoutMs: 60_000,
        what: 'ledger retries while processed_events is locked',
      },
    );
    const memberBefore = await groupMembers(h);
    assert.equal(memberBefore.length, 1, 'the bridge is in its group');
    // What is tested is time itself: past the session timeout, a bridge hung in a query
    // (no statement timeout, no heartbeat) would have been evicted from its group.
    const retriesBefore = await counter(first, 'transientRetries', { dependency: 'postgres' });
    const since = Date.now();
    await waitFor(
      async () =>
        Date.now() - since > h.config.bridge.sessionTimeoutMs + 2000 &&
        (await counter(first, 'transientRetries', { dependency: 'postgres' })) > retriesBefore,
      { timeoutMs: 30_000, intervalMs: 500, what: 'retries going on past a session timeout' },
    );
    assert.deepEqual(
      await groupMembers(h),
      memberBefore,
      'still the same member: it kept heartbeating',
    );
    assert.ok(
      [...(await h.committedOffsets()).values()].every((o) => o === -1),
      'nothing committed',
    );

    const stopStarted = Date.now();
    await first.stop();
    const stopMs = Date.now() - stopStarted;
    assert.ok(
      stopMs < statementTimeoutMs + 10_000,
      `stop() took ${stopMs} ms with the table locked`,
    );

    const second = await h.startBridge({ pool: bridgePool });
    await waitFor(
      async () => (await counter(second, 'transientRetries', { dependency: 'postgres' })) >= 1,
      {
        timeoutMs: 60_000,
        what: 'the second bridge meets the lock too',
      },
    );
    await locker.query('ROLLBACK');
    locked = false;
    await h.waitUntilAllCommitted(60_000);
    assert.equal(await h.ledgerCount(), 3);
    assert.equal(await counter(second, 'started'), 3);
    assert.equal(await counter(second, 'dlq'), 0, 'a hung dependency never dead-letters');
  });

  it('a bridge stuck on a Temporal outage leaves the partitions a newcomer takes at once', async () => {
    h = await new BridgeHarness({ sessionTimeoutMs: 10_000 }).setUp(2);
    const [host, port] = h.config.temporal.address.split(':');
    const proxy = new TcpProxy(host!, Number(port));
    await proxy.open();
    cleanups.push(() => proxy.cut());
    const connection = await Connection.connect(
      clientConnectionOptions({ ...h.config.temporal, address: proxy.address }),
    );
    const unreachable = new Client({ connection, namespace: h.config.temporal.namespace });
    // Starts the first bridge abandons when it loses a partition go on retrying inside the
    // Temporal client; the connection is closed only once they have settled.
    let inFlight = 0;
    const start = unreachable.workflow.start.bind(unreachable.workflow);
    unreachable.workflow.start = ((...args: Parameters<typeof start>) => {
      inFlight++;
      return start(...args).finally(() => inFlight--);
    }) as typeof start;
    cleanups.push(async () => {
      await proxy.open().catch(() => undefined);
      await waitFor(() => inFlight === 0, { timeoutMs: 90_000, what: 'abandoned starts settled' });
      await connection.close();
    });
    await proxy.cut();

    const first = await h.startBridge({ client: unreachable });
    const producer = h.kafka.producer();
    await producer.connect();
    try {
      await producer.send({
        topic: h.topic,
        acks: -1,
        messages: [0, 0, 1, 1].map((partition) => ({ ...order(), partition })),
      });
    } finally {
      await producer.disconnect();
    }
    await waitFor(
      async () => (await counter(first, 'transientRetries', { dependency: 'temporal' })) >= 2,
      {
        timeoutMs: 60_000,
        what: 'the first bridge retrying Temporal',
      },
    );

    const joinedAt = Date.now();
    const second = await h.startBridge();
    // The group's rebalance waits for every member to rejoin; a member stuck in a batch used
    // to hold it for the whole rebalance timeout (60 s), keeping both partitions idle.
    await waitFor(async () => (await counter(second, 'started')) >= 2, {
      timeoutMs: 25_000,
      what: 'the newcomer starting the events of the partition it was given',
    });
    const takeoverMs = Date.now() - joinedAt;
    const committed = await h.committedOffsets();
    assert.deepEqual(
      [...committed.values()].sort(),
      [-1, 2],
      `one partition done by the newcomer, the other still waiting on Temporal (${JSON.stringify([...committed])})`,
    );
    assert.equal(await counter(first, 'started'), 0);
    assert.equal(await counter(first, 'dlq'), 0);

    await proxy.open();
    await h.waitUntilAllCommitted(120_000);
    assert.equal(await h.ledgerCount(), 4);
    // A start abandoned when the partition was lost may still have reached Temporal once it
    // was back: the next attempt then finds it already started (a duplicate), never a second run.
    const handled = await Promise.all(
      [first, second].flatMap((b) => [counter(b, 'started'), counter(b, 'duplicates')]),
    );
    assert.equal(
      handled.reduce((a, b) => a + b, 0),
      4,
      `started + deduplicated: ${JSON.stringify(handled)}`,
    );
    assert.equal((await counter(first, 'dlq')) + (await counter(second, 'dlq')), 0);
    console.log(`      takeover after ${takeoverMs} ms`);
  });
});

/** Member IDs of the harness' consumer group. */
async function groupMembers(h: BridgeHarness): Promise<string[]> {
  const admin = h.kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([h.groupId]);
    return groups[0]!.members.map((m) => m.memberId).sort();
  } finally {
    await admin.disconnect();
  }
}
