import { strict as assert } from 'node:assert';
import { BridgeHarness } from '../../support/bridge-harness';
import {
  produceWithApicurioSerde,
  type SerdeProduceOptions,
} from '../../support/java-registry-producer';
import { stackRegistryUrl } from '../../support/node-registry-producer';
import { accountHeaders, ACCOUNT_ROUTES } from '../../support/registry-account';
import { ACCOUNT_V1_AVRO } from '../../support/registry-schemas';
import { uniqueName } from '../../support/services';

/**
 * Avro values written by Apicurio's own Java serde in its own framing (its 2.x default, 3.x
 * with `apicurio.registry.headers.enabled`): the schema's ID in an `apicurio.value.*` header,
 * the payload alone as the value. A content ID is what the Confluent-compatible API serves, so
 * the bridge decodes the value; a global ID is not, so the value is dead-lettered saying so.
 * (Protobuf in this framing: registry-protobuf-imports.test.ts.)
 */
describe("bridge: Apicurio's header framing (Avro)", function () {
  this.timeout(180_000);
  let h: BridgeHarness;
  let registryUrl: string;
  before(async () => {
    registryUrl = await stackRegistryUrl();
    h = await new BridgeHarness().setUp(1);
    await h.startBridge({ routes: ACCOUNT_ROUTES });
  });
  after(async () => {
    await h?.tearDown();
  });

  /** Writes versions of `account` with the serde framed by `headers`, then waits for the bridge. */
  async function produce(
    account: string,
    headers: SerdeProduceOptions['headers'],
    versions: number[],
  ): Promise<void> {
    await produceWithApicurioSerde({
      brokers: h.config.kafka.brokers,
      registryUrl,
      topic: h.topic,
      format: 'avro',
      headers,
      schema: ACCOUNT_V1_AVRO,
      records: versions.map((version) => ({
        key: account,
        headers: accountHeaders(account, version),
        json: { accountId: account, balanceMinor: version * 10 },
      })),
    });
    await h.waitUntilAllCommitted();
  }

  /** The DLQ entries of `account`. */
  const deadOf = async (account: string) => (await h.readDlq()).filter((d) => d.key === account);

  /** The ledger's identities of `account`, in order. */
  async function identitiesOf(account: string): Promise<string[]> {
    const { rows } = await h.pool.query<{ identity: string }>(
      `SELECT identity FROM "${h.schema}".processed_events WHERE aggregate_id = $1 ORDER BY identity`,
      [account],
    );
    return rows.map((r) => r.identity);
  }

  it('framed by its content ID header: decoded, each event started once', async () => {
    const account = uniqueName('acct');
    await produce(account, 'contentId', [1, 2, 2]);
    assert.deepEqual(
      (await deadOf(account)).map((d) => `${d.headers['dlq-reason']}: ${d.headers['dlq-error']}`),
      [],
    );
    assert.deepEqual(await identitiesOf(account), [`v:${account}@1`, `v:${account}@2`]);
  });

  it('framed by its global ID header: dead-lettered schema-unsupported, naming the serde setting', async () => {
    const account = uniqueName('acct');
    await produce(account, 'globalId', [1]);
    const [dlq, ...more] = await deadOf(account);
    assert.equal(more.length, 0);
    assert.equal(dlq!.headers['dlq-reason'], 'schema-unsupported');
    assert.match(dlq!.headers['dlq-error']!, /global ID .*apicurio\.registry\.use-id=contentId/);
    assert.ok(dlq!.headers['apicurio.value.globalId'] !== undefined, 'the original headers kept');
    assert.deepEqual(await identitiesOf(account), []);
  });
});
