import { strict as assert } from 'node:assert';
import { SchemaId } from '@confluentinc/schemaregistry/dist/serde/serde';
import { readStackState } from '../../../harness/stack/stack';
import type { Config } from '../../../src/config';
import type { RunningBridge } from '../../../src/kafka-bridge/bridge';
import { ensureTopics } from '../../../src/kafka/topics';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { NodeRegistryProducer, stackRegistryUrl } from '../../support/node-registry-producer';
import { accountHeaders, ACCOUNT_ROUTES, registryRetries } from '../../support/registry-account';
import { ACCOUNT_V1_AVRO, ACCOUNT_V2_AVRO } from '../../support/registry-schemas';
import { uniqueName } from '../../support/services';

/** How long the registry stays stopped: the 30 s. */
const OUTAGE_MS = 30_000;

/** How soon an event the stall does not concern must start: "within seconds". */
const SOON_MS = 10_000;

/** An account event as plain JSON (onceflow's envelope in headers): no registry involved. */
const jsonAccount = (account: string, partition?: number) => ({
  key: account,
  value: JSON.stringify({ accountId: account, balanceMinor: 1 }),
  headers: accountHeaders(account, 1),
  ...(partition !== undefined ? { partition } : {}),
});

/** Whether the ledger holds the identity of version 1 of `account`. */
async function started(h: BridgeHarness, account: string): Promise<boolean> {
  const { rows } = await h.pool.query(
    `SELECT 1 FROM "${h.schema}".processed_events WHERE identity = $1`,
    [`v:${account}@1`],
  );
  return rows.length > 0;
}

/** Waits for each account's start; fails naming the ones that did not start within `ms`. */
async function startsWithin(h: BridgeHarness, accounts: string[], ms: number, what: string) {
  await waitFor(
    async () => {
      const waiting = [];
      for (const a of accounts) if (!(await started(h, a))) waiting.push(a);
      if (waiting.length === 0) return true;
      throw new Error(`not started: ${waiting.join(', ')}`);
    },
    { timeoutMs: ms, intervalMs: 250, what },
  );
}

/** The partitions the bridge has paused, as `topic/partition dependency fault`. */
const paused = (bridge: RunningBridge) =>
  bridge.metrics.pauses.list().map((p) => `${p.topic}/${p.partition} ${p.dependency} ${p.fault}`);

/**
 * The stack's registry stopped (SIGSTOP: it accepts connections and answers nothing, as a hung
 * or partitioned server does) while records of a schema the bridge has not seen yet arrive: the
 * partition of those records stalls, paused, with nothing dead-lettered or committed past them,
 * while the bridge's other partitions and topics go on; once the registry runs again every
 * record starts once.
 */
describe('bridge: the schema registry stopped, or not knowing a schema ID, stalls only its partition', function () {
  this.timeout(240_000);
  let h: BridgeHarness;
  let registryPid: number;
  let node: NodeRegistryProducer;
  /** A topic of plain JSON events on the same bridge. */
  let other: string;
  beforeEach(async () => {
    const url = await stackRegistryUrl();
    const pid = readStackState()?.pids['schema-registry'];
    assert.ok(pid, 'the stack runs its own registry');
    registryPid = pid;
    node = new NodeRegistryProducer(url);
    h = await new BridgeHarness().setUp(3);
    other = uniqueName('accounts-json');
    await ensureTopics(h.kafka, { topics: [other], partitions: 1 });
  });
  afterEach(async () => {
    process.kill(registryPid, 'SIGCONT'); // whatever happened, the stack's registry runs on
    await h.tearDown();
  });

  /** The harness' config: a short registry timeout, so a hung request fails and is retried. */
  const configWith = (bridge: Partial<Config['bridge']> = {}): Config => {
    const base = h.config;
    return {
      ...base,
      schemaRegistry: { ...base.schemaRegistry!, timeoutMs: 1000 },
      bridge: { ...base.bridge, ...bridge },
    };
  };

  it('stopped for 30 s mid-stream: its partition stalls (0 dead letters), another topic goes on, and it resumes', async () => {
    const accounts = [uniqueName('acct'), uniqueName('acct'), uniqueName('acct')];
    const v1 = (a: string) =>
      node.avro(h.topic, ACCOUNT_V1_AVRO, { accountId: a, balanceMinor: 1 });
    await h.produce(
      await Promise.all(
        accounts.map(async (a) => ({
          key: a,
          value: await v1(a),
          headers: accountHeaders(a, 1),
          partition: 0,
        })),
      ),
    );
    const bridge = await h.startBridge({
      routes: ACCOUNT_ROUTES,
      config: configWith(),
      topics: [h.topic, other],
    });
    await h.waitUntilAllCommitted();
    assert.equal(await h.ledgerCount(), 3);

    // Encoded (and the evolved schema registered) before the outage; the bridge has not seen it.
    const v2 = await Promise.all(
      accounts.map(async (a) => ({
        key: a,
        value: await node.avro(h.topic, ACCOUNT_V2_AVRO, {
          accountId: a,
          balanceMinor: 2,
          note: null,
        }),
        headers: accountHeaders(a, 2),
        partition: 0,
      })),
    );
    process.kill(registryPid, 'SIGSTOP');
    const stoppedAt = Date.now();
    await h.produce(v2);
    const end = await h.endOffsets();
    await waitFor(async () => paused(bridge).some((p) => p.startsWith(`${h.topic}/0 registry`)), {
      timeoutMs: SOON_MS,
      what: 'the partition paused on the registry',
    });
    // Meanwhile a topic of plain JSON on the same bridge goes on.
    const meanwhile = [uniqueName('json'), uniqueName('json')];
    await h.produce(
      meanwhile.map((a) => jsonAccount(a)),
      other,
    );
    await startsWithin(h, meanwhile, SOON_MS, 'the other topic’s events started');
    await waitFor(
      async () => {
        // Throughout the outage: nothing dead-lettered, started or committed past the stall.
        assert.equal(await h.dlqSize(), 0, 'no dead letter while the registry is down');
        assert.equal(await h.ledgerCount(), 5, 'nothing of the stalled partition started');
        assert.notDeepEqual(await h.committedOffsets(), end, 'nothing committed past the stall');
        return (
          Date.now() - stoppedAt >= OUTAGE_MS && (await registryRetries(bridge, 'unavailable')) > 0
        );
      },
      { timeoutMs: OUTAGE_MS + 30_000, intervalMs: 1000, what: 'the 30 s outage, retried' },
    );
    process.kill(registryPid, 'SIGCONT');

    await h.waitUntilAllCommitted(90_000);
    assert.equal(await h.ledgerCount(), 8, 'every record started once');
    assert.equal(await h.dlqSize(), 0, 'and none dead-lettered');
    assert.deepEqual(paused(bridge), [], 'resumed');
  });

  it('one partition waiting on a schema ID the registry does not know, another on the stopped registry: the other partitions and topics start within seconds', async () => {
    const known = uniqueName('acct');
    const knownValue = await node.avro(h.topic, ACCOUNT_V1_AVRO, {
      accountId: known,
      balanceMinor: 1,
    });
    await h.produce([
      { key: known, value: knownValue, headers: accountHeaders(known, 1), partition: 2 },
    ]);
    // Long enough that the unknown ID is not dead-lettered during the test.
    const bridge = await h.startBridge({
      routes: ACCOUNT_ROUTES,
      config: configWith({ schemaUnknownAfterMs: 600_000 }),
      topics: [h.topic, other],
    });
    await startsWithin(h, [known], 60_000, 'the first value decoded');

    // Partition 0: a value naming a schema ID the registry does not know.
    const unknown = uniqueName('acct');
    const unknownValue = Buffer.from(knownValue);
    new SchemaId('AVRO', 2_000_000_000).idToBytes().copy(unknownValue, 0);
    await h.produce([
      { key: unknown, value: unknownValue, headers: accountHeaders(unknown, 1), partition: 0 },
    ]);
    await waitFor(async () => paused(bridge).includes(`${h.topic}/0 registry schema-pending`), {
      timeoutMs: SOON_MS,
      what: 'partition 0 paused, waiting for the schema ID',
    });
    const first = [uniqueName('p1'), uniqueName('p2'), uniqueName('json')];
    await h.produce([jsonAccount(first[0]!, 1), jsonAccount(first[1]!, 2)]);
    await h.produce([jsonAccount(first[2]!)], other);
    await startsWithin(h, first, SOON_MS, 'events of other partitions and topics started');

    // Partition 1: a schema the bridge has not seen yet, while the registry is stopped.
    const unseen = uniqueName('acct');
    const unseenValue = await node.avro(h.topic, ACCOUNT_V2_AVRO, {
      accountId: unseen,
      balanceMinor: 3,
      note: null,
    });
    process.kill(registryPid, 'SIGSTOP');
    await h.produce([
      { key: unseen, value: unseenValue, headers: accountHeaders(unseen, 1), partition: 1 },
    ]);
    await waitFor(async () => paused(bridge).some((p) => p.startsWith(`${h.topic}/1 registry`)), {
      timeoutMs: SOON_MS,
      what: 'partition 1 paused on the stopped registry',
    });
    const second = [uniqueName('p2'), uniqueName('json')];
    await h.produce([jsonAccount(second[0]!, 2)]);
    await h.produce([jsonAccount(second[1]!)], other);
    await startsWithin(h, second, SOON_MS, 'events of other partitions and topics started');
    assert.equal(await started(h, unseen), false, 'partition 1 waits for the registry');

    process.kill(registryPid, 'SIGCONT');
    await startsWithin(h, [unseen], 60_000, 'partition 1 resumed once the registry runs');
    assert.equal(await started(h, unknown), false, 'partition 0 still waits for its schema ID');
    assert.equal(await h.dlqSize(), 0, 'nothing dead-lettered');
    // Its wait was `unavailable` while the registry was stopped; the registry answers again.
    await waitFor(
      () =>
        JSON.stringify(paused(bridge)) === JSON.stringify([`${h.topic}/0 registry schema-pending`]),
      { timeoutMs: SOON_MS, what: 'only partition 0 paused, waiting for its schema ID' },
    );
  });
});
