import { strict as assert } from 'node:assert';
import { SchemaId } from '@confluentinc/schemaregistry/dist/serde/serde';
import { z } from 'zod';
import type { Config } from '../../../src/config';
import { DEFAULT_ROUTES } from '../../../src/domains';
import { defineRoute } from '../../../src/events/define-route';
import { mergeRoutes } from '../../../src/events/routes';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { produceWithApicurioSerde } from '../../support/java-registry-producer';
import { NodeRegistryProducer, stackRegistryUrl } from '../../support/node-registry-producer';
import { accountHeaders, ACCOUNT_ROUTES, registryRetries } from '../../support/registry-account';
import {
  ACCOUNT_NOTE_FIRST_AVRO,
  ACCOUNT_V1_AVRO,
  ACCOUNT_V2_AVRO,
  uniqueAccountAvro,
} from '../../support/registry-schemas';
import { DlqReplayFixture } from '../../support/dlq-replay-fixture';
import { uniqueName } from '../../support/services';

/** The identities the ledger holds, in order. */
async function identities(h: BridgeHarness): Promise<string[]> {
  const { rows } = await h.pool.query<{ identity: string }>(
    `SELECT identity FROM "${h.schema}".processed_events ORDER BY identity`,
  );
  return rows.map((r) => r.identity);
}

/** The schema ID a wire-format value carries (or a value that looks like one). */
const schemaIdOf = (value: Buffer) => value.readUInt32BE(1);

/** The Avro payload of a wire-format value: what a producer without the framing writes. */
const withoutFraming = (value: Buffer) => value.subarray(5);

describe('bridge: values through the schema registry', function () {
  this.timeout(180_000);
  let h: BridgeHarness;
  let node: NodeRegistryProducer;
  let registryUrl: string;
  /** The harness' config with a short BRIDGE_SCHEMA_UNKNOWN_AFTER. */
  const unknownAfter = (ms: number): Config => ({
    ...h.config,
    bridge: { ...h.config.bridge, schemaUnknownAfterMs: ms },
  });
  beforeEach(async () => {
    registryUrl = await stackRegistryUrl();
    node = new NodeRegistryProducer(registryUrl);
    h = await new BridgeHarness().setUp(1);
  });
  afterEach(async () => {
    await h.tearDown();
  });

  it('a schema evolved with an optional field between two versions of one aggregate, from Node and Java: each starts once', async () => {
    const [fromNode, fromJava] = [uniqueName('acct-node'), uniqueName('acct-java')];
    const v1 = await node.avro(h.topic, ACCOUNT_V1_AVRO, {
      accountId: fromNode,
      balanceMinor: 100,
    });
    const v2 = await node.avro(h.topic, ACCOUNT_V2_AVRO, {
      accountId: fromNode,
      balanceMinor: 150,
      note: 'raised',
    });
    assert.notEqual(schemaIdOf(v1), schemaIdOf(v2), 'the evolved schema has an ID of its own');
    await h.produce([
      { key: fromNode, value: v1, headers: accountHeaders(fromNode, 1) },
      { key: fromNode, value: v2, headers: accountHeaders(fromNode, 2) },
      { key: fromNode, value: v1, headers: accountHeaders(fromNode, 1) }, // a re-send
    ]);
    for (const [schema, version, json] of [
      [ACCOUNT_V1_AVRO, 1, { accountId: fromJava, balanceMinor: 7 }],
      [ACCOUNT_V2_AVRO, 2, { accountId: fromJava, balanceMinor: 9, note: { string: 'x' } }],
    ] as const)
      await produceWithApicurioSerde({
        brokers: h.config.kafka.brokers,
        registryUrl,
        topic: h.topic,
        format: 'avro',
        schema,
        records: [{ key: fromJava, headers: accountHeaders(fromJava, version), json }],
      });
    const bridge = await h.startBridge({ routes: ACCOUNT_ROUTES });
    await h.waitUntilAllCommitted();
    assert.deepEqual(await identities(h), [
      `v:${fromJava}@1`,
      `v:${fromJava}@2`,
      `v:${fromNode}@1`,
      `v:${fromNode}@2`,
    ]);
    assert.equal(await h.dlqSize(), 0);
    assert.equal(await registryRetries(bridge), 0, 'the registry answered every time');
  });

  it('bytes that do not decode with their schema: unparseable, dead-lettered with the original bytes and the schema ID', async () => {
    const account = uniqueName('acct');
    const valid = await node.avro(h.topic, ACCOUNT_V1_AVRO, {
      accountId: account,
      balanceMinor: 1,
    });
    // The schema's ID, then bytes Avro cannot read as its record (a negative string length).
    const broken = Buffer.concat([valid.subarray(0, 5), Buffer.from([0x01, 0xff, 0xff])]);
    await h.produce([
      { key: account, value: broken, headers: accountHeaders(account, 1) },
      { key: account, value: valid, headers: accountHeaders(account, 2) },
    ]);
    await h.startBridge({ routes: ACCOUNT_ROUTES });
    await h.waitUntilAllCommitted();
    assert.deepEqual(await identities(h), [`v:${account}@2`], 'the partition moved on');
    const [dlq, ...more] = await h.readDlq();
    assert.equal(more.length, 0);
    assert.equal(dlq!.headers['dlq-reason'], 'unparseable');
    assert.equal(dlq!.headers['dlq-schema-id'], String(schemaIdOf(valid)));
    assert.match(dlq!.headers['dlq-error']!, /does not decode with schema \d+ \(AVRO\)/);
    assert.ok(dlq!.valueBytes?.equals(broken), 'the original bytes');
  });

  it('raw Avro whose null first field reads as a zero byte, among valid values: the partition waits a moment, then dead-letters it schema-unknown and moves on', async () => {
    const [before, raw, after] = [uniqueName('acct'), uniqueName('acct'), uniqueName('acct')];
    const valid = (account: string) =>
      node.avro(h.topic, ACCOUNT_V1_AVRO, { accountId: account, balanceMinor: 1 });
    // A producer that forgot the registry's framing: plain Avro (Confluent's serializer's own
    // encoding, without its 5-byte header), whose null note is a zero byte.
    const rawAvro = withoutFraming(
      await node.avro(h.topic, ACCOUNT_NOTE_FIRST_AVRO, {
        note: null,
        accountId: raw,
        balanceMinor: 5,
      }),
    );
    assert.equal(rawAvro[0], 0, 'the null union branch is a zero byte');
    await h.produce([
      { key: before, value: await valid(before), headers: accountHeaders(before, 1) },
      { key: raw, value: rawAvro, headers: accountHeaders(raw, 1) },
      { key: after, value: await valid(after), headers: accountHeaders(after, 1) },
    ]);
    const bridge = await h.startBridge({ routes: ACCOUNT_ROUTES, config: unknownAfter(1500) });
    await h.waitUntilAllCommitted();
    assert.deepEqual(
      await identities(h),
      [`v:${after}@1`, `v:${before}@1`].sort(),
      'the valid values start, before and after it',
    );
    const [dlq, ...more] = await h.readDlq();
    assert.equal(more.length, 0);
    assert.equal(dlq!.headers['dlq-reason'], 'schema-unknown');
    assert.equal(dlq!.headers['dlq-schema-id'], String(schemaIdOf(rawAvro)));
    assert.match(dlq!.headers['dlq-error']!, /unknown to the registry .*replay it once/);
    assert.ok(dlq!.valueBytes?.equals(rawAvro), 'the original bytes');
    assert.ok((await registryRetries(bridge, 'schema-pending')) > 0, 'it waited first');
    assert.equal(await registryRetries(bridge, 'schema-unknown'), 0, 'the registry answered');
  });

  it('a schema registered after its values were dead-lettered schema-unknown: dlq replay starts each once', async () => {
    const account = uniqueName('acct');
    const late = uniqueAccountAvro(uniqueName('Late'));
    // The late schema's fields are version 1's: its Avro encoding is theirs.
    const payload = withoutFraming(
      await node.avro(h.topic, ACCOUNT_V1_AVRO, { accountId: account, balanceMinor: 42 }),
    );
    // The registry numbers schemas in order: the one registered next gets the ID after this.
    const earlier = await node.avro(h.topic, uniqueAccountAvro(uniqueName('Earlier')), {
      accountId: uniqueName('acct'),
      balanceMinor: 1,
    });
    const nextId = schemaIdOf(earlier) + 1;
    const value = Buffer.concat([new SchemaId('AVRO', nextId).idToBytes(), payload]);
    await h.produce([{ key: account, value, headers: accountHeaders(account, 1) }]);
    await h.startBridge({ routes: ACCOUNT_ROUTES, config: unknownAfter(1500) });
    await h.waitUntilAllCommitted();
    assert.deepEqual(await identities(h), []);
    const [dlq] = await h.readDlq();
    assert.equal(dlq!.headers['dlq-reason'], 'schema-unknown');
    assert.equal(dlq!.headers['dlq-schema-id'], String(nextId));

    const registered = await node.avro(h.topic, late, { accountId: account, balanceMinor: 42 });
    assert.equal(schemaIdOf(registered), nextId, 'the registry gave the late schema that ID');
    const fx = new DlqReplayFixture(h);
    const first = await fx.replay(['--reason', 'schema-unknown', '--yes']);
    assert.equal(first.json.replayed, 1);
    await waitFor(async () => (await identities(h)).length > 0, {
      timeoutMs: 30_000,
      what: 'the replayed value started',
    });
    const again = await fx.replay(['--reason', 'schema-unknown', '--yes']);
    assert.equal(again.json.replayed, 0, 'replayed once, ever');
    await h.waitUntilAllCommitted();
    assert.deepEqual(await identities(h), [`v:${account}@1`]);
    assert.equal(await h.dlqSize(), 1, 'not dead-lettered again');
  });

  it('a route that says registry: false: a zero byte is a byte (unparseable at once), the registry is never asked', async () => {
    const topicRoutes = mergeRoutes(DEFAULT_ROUTES, [
      defineRoute({
        eventType: 'AccountChanged',
        schema: z.object({ accountId: z.string(), balanceMinor: z.number().int() }),
        workflow: 'accountChanged',
        registry: false,
      }),
    ]);
    const account = uniqueName('acct');
    const bytes = Buffer.from([0, 0, 0, 0, 1, 2, 3]);
    await h.produce([
      { key: account, value: bytes, headers: accountHeaders(account, 1) },
      {
        key: account,
        value: JSON.stringify({ accountId: account, balanceMinor: 1 }),
        headers: accountHeaders(account, 2),
      },
    ]);
    // Its other routes (the orders') must say so too: one topic is read one way.
    const own = new Map([...topicRoutes].map(([t, r]) => [t, { ...r, registry: false as const }]));
    const bridge = await h.startBridge({ routes: own });
    await h.waitUntilAllCommitted();
    assert.deepEqual(await identities(h), [`v:${account}@2`]);
    const [dlq] = await h.readDlq();
    assert.equal(dlq!.headers['dlq-reason'], 'unparseable');
    assert.equal(dlq!.headers['dlq-schema-id'], undefined, 'no schema ID: it is not one');
    assert.equal(await registryRetries(bridge), 0);
  });
});
