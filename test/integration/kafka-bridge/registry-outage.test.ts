import { strict as assert } from 'node:assert';
import { readStackState } from '../../../harness/stack/stack';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { NodeRegistryProducer, stackRegistryUrl } from '../../support/node-registry-producer';
import { accountHeaders, ACCOUNT_ROUTES, registryRetries } from '../../support/registry-account';
import { ACCOUNT_V1_AVRO, ACCOUNT_V2_AVRO } from '../../support/registry-schemas';
import { uniqueName } from '../../support/services';

/** How long the registry stays stopped: the 30 s. */
const OUTAGE_MS = 30_000;

/**
 * The stack's registry stopped (SIGSTOP: it accepts connections and answers nothing, as a
 * hung or partitioned server does) for 30 s while records of a schema the bridge has not
 * seen yet arrive: the partition stalls with nothing dead-lettered or committed past them,
 * and once the registry runs again every record starts once.
 */
describe('bridge: the schema registry stopped for 30 s mid-stream', function () {
  this.timeout(240_000);
  let h: BridgeHarness;
  let registryPid: number;
  beforeEach(async () => {
    await stackRegistryUrl();
    const pid = readStackState()?.pids['schema-registry'];
    assert.ok(pid, 'the stack runs its own registry');
    registryPid = pid;
    h = await new BridgeHarness().setUp(1);
  });
  afterEach(async () => {
    process.kill(registryPid, 'SIGCONT'); // whatever happened, the stack's registry runs on
    await h.tearDown();
  });

  it('stalls the bridge (0 dead letters) and it resumes', async () => {
    const node = new NodeRegistryProducer((await stackRegistryUrl())!);
    const accounts = [uniqueName('acct'), uniqueName('acct'), uniqueName('acct')];
    const v1 = (a: string) =>
      node.avro(h.topic, ACCOUNT_V1_AVRO, { accountId: a, balanceMinor: 1 });
    await h.produce(
      await Promise.all(
        accounts.map(async (a) => ({ key: a, value: await v1(a), headers: accountHeaders(a, 1) })),
      ),
    );
    // A short registry timeout, so a hung request fails (and is retried) quickly.
    const base = h.config;
    const config = { ...base, schemaRegistry: { ...base.schemaRegistry!, timeoutMs: 1000 } };
    const bridge = await h.startBridge({ routes: ACCOUNT_ROUTES, config });
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
      })),
    );
    process.kill(registryPid, 'SIGSTOP');
    const stoppedAt = Date.now();
    await h.produce(v2);
    const end = await h.endOffsets();
    await waitFor(
      async () => {
        // Throughout the outage: nothing dead-lettered, started or committed past the stall.
        assert.equal(await h.dlqSize(), 0, 'no dead letter while the registry is down');
        assert.equal(await h.ledgerCount(), 3, 'nothing started while the registry is down');
        assert.notDeepEqual(await h.committedOffsets(), end, 'nothing committed past the stall');
        return (
          Date.now() - stoppedAt >= OUTAGE_MS && (await registryRetries(bridge, 'unavailable')) > 0
        );
      },
      { timeoutMs: OUTAGE_MS + 30_000, intervalMs: 1000, what: 'the 30 s outage, retried' },
    );
    process.kill(registryPid, 'SIGCONT');

    await h.waitUntilAllCommitted(90_000);
    assert.equal(await h.ledgerCount(), 6, 'every record started once');
    assert.equal(await h.dlqSize(), 0, 'and none dead-lettered');
  });
});
