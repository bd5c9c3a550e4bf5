import { strict as assert } from 'node:assert';
import { SchemaId } from '@confluentinc/schemaregistry/dist/serde/serde';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { produceWithApicurioSerde } from '../../support/java-registry-producer';
import { NodeRegistryProducer, stackRegistryUrl } from '../../support/node-registry-producer';
import { accountHeaders, ACCOUNT_ROUTES, registryRetries } from '../../support/registry-account';
import { ACCOUNT_V1_AVRO, ACCOUNT_V2_AVRO } from '../../support/registry-schemas';
import { uniqueName } from '../../support/services';

/** The identities the ledger holds, in order. */
async function identities(h: BridgeHarness): Promise<string[]> {
  const { rows } = await h.pool.query<{ identity: string }>(
    `SELECT identity FROM "${h.schema}".processed_events ORDER BY identity`,
  );
  return rows.map((r) => r.identity);
}

/** The schema ID a wire-format value carries. */
const schemaIdOf = (value: Buffer) => value.readUInt32BE(1);

describe('bridge: values through the schema registry', function () {
  this.timeout(180_000);
  let h: BridgeHarness;
  let node: NodeRegistryProducer;
  let registryUrl: string;
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

  it('a schema ID the registry does not know (while it answers): the partition waits, nothing dead-lettered', async () => {
    const account = uniqueName('acct');
    const valid = await node.avro(h.topic, ACCOUNT_V1_AVRO, {
      accountId: account,
      balanceMinor: 1,
    });
    const unknown = Buffer.from(valid);
    new SchemaId('AVRO', 2_000_000_000).idToBytes().copy(unknown, 0);
    await h.produce([
      { key: account, value: unknown, headers: accountHeaders(account, 1) },
      { key: account, value: valid, headers: accountHeaders(account, 2) },
    ]);
    const bridge = await h.startBridge({ routes: ACCOUNT_ROUTES });
    await waitFor(async () => (await registryRetries(bridge, 'schema-unknown')) >= 3, {
      timeoutMs: 60_000,
      what: 'the bridge retrying the unknown schema ID',
    });
    assert.equal(await h.dlqSize(), 0, 'the environment, not the message');
    assert.deepEqual(await identities(h), [], 'the valid event after it waits too');
    assert.ok(![...(await h.committedOffsets()).values()].some((o) => o > 0), 'nothing committed');
  });
});
