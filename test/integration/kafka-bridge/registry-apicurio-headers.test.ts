import { strict as assert } from 'node:assert';
import { BridgeHarness } from '../../support/bridge-harness';
import { produceWithApicurioSerde } from '../../support/java-registry-producer';
import { stackRegistryUrl } from '../../support/node-registry-producer';
import { accountHeaders, ACCOUNT_ROUTES } from '../../support/registry-account';
import { ACCOUNT_V1_AVRO } from '../../support/registry-schemas';
import { uniqueName } from '../../support/services';

/** AccountChanged as Protobuf, after another message (so only its name can pick it). */
const ACCOUNT_PROTO = `syntax = "proto3";
package onceflow.test;

message Audit {
  string by = 1;
}

message AccountChanged {
  string account_id = 1;
  int32 balance_minor = 2;
}
`;

/**
 * Values written by Apicurio's own Java serde in its own framing (its 2.x default, 3.x with
 * `apicurio.registry.headers.enabled`): the schema's ID in an `apicurio.value.*` header, the
 * payload alone as the value, Protobuf with Apicurio's type reference. A content ID is what
 * the Confluent-compatible API serves, so the bridge decodes the value; a global ID is not,
 * so the value is dead-lettered saying so.
 */
describe("bridge: Apicurio's header framing", function () {
  this.timeout(180_000);
  let h: BridgeHarness;
  let registryUrl: string;
  beforeEach(async () => {
    registryUrl = await stackRegistryUrl();
    h = await new BridgeHarness().setUp(1);
  });
  afterEach(async () => {
    await h.tearDown();
  });

  /** The ledger's identities, in order. */
  async function identities(): Promise<string[]> {
    const { rows } = await h.pool.query<{ identity: string }>(
      `SELECT identity FROM "${h.schema}".processed_events ORDER BY identity`,
    );
    return rows.map((r) => r.identity);
  }

  for (const format of ['avro', 'protobuf'] as const) {
    it(`${format} framed by its content ID header: decoded, each event started once`, async () => {
      const account = uniqueName('acct');
      await produceWithApicurioSerde({
        brokers: h.config.kafka.brokers,
        registryUrl,
        topic: h.topic,
        format,
        headers: 'contentId',
        schema: format === 'avro' ? ACCOUNT_V1_AVRO : ACCOUNT_PROTO,
        ...(format === 'protobuf' ? { message: 'AccountChanged' } : {}),
        records: [1, 2, 2].map((version) => ({
          key: account,
          headers: accountHeaders(account, version),
          json: { accountId: account, balanceMinor: version * 10 },
        })),
      });
      await h.startBridge({ routes: ACCOUNT_ROUTES });
      await h.waitUntilAllCommitted();
      const dead = await h.readDlq();
      assert.deepEqual(
        dead.map((d) => `${d.headers['dlq-reason']}: ${d.headers['dlq-error']}`),
        [],
      );
      assert.deepEqual(await identities(), [`v:${account}@1`, `v:${account}@2`]);
    });
  }

  it('framed by its global ID header: dead-lettered schema-unsupported, naming the serde setting', async () => {
    const account = uniqueName('acct');
    await produceWithApicurioSerde({
      brokers: h.config.kafka.brokers,
      registryUrl,
      topic: h.topic,
      format: 'avro',
      headers: 'globalId',
      schema: ACCOUNT_V1_AVRO,
      records: [
        {
          key: account,
          headers: accountHeaders(account, 1),
          json: { accountId: account, balanceMinor: 1 },
        },
      ],
    });
    await h.startBridge({ routes: ACCOUNT_ROUTES });
    await h.waitUntilAllCommitted();
    const [dlq, ...more] = await h.readDlq();
    assert.equal(more.length, 0);
    assert.equal(dlq!.headers['dlq-reason'], 'schema-unsupported');
    assert.match(dlq!.headers['dlq-error']!, /global ID .*apicurio\.registry\.use-id=contentId/);
    assert.ok(dlq!.headers['apicurio.value.globalId'] !== undefined, 'the original headers kept');
    assert.deepEqual(await identities(), []);
  });
});
