import { strict as assert } from 'node:assert';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { DlqReplayFixture } from '../../support/dlq-replay-fixture';
import { runOps } from '../../support/ops-cli';
import { uniqueName } from '../../support/services';

/**
 * A route's tenant and the event's origin as Temporal reports them (describe): a live order
 * starts at priority 2 with its merchant as fairness key, the same kind of order replayed from
 * the DLQ at 4, behind every live one. Real bridge, Kafka, Postgres, Temporal and CLI.
 */
describe('fairness: a run starts with its tenant and its origin as Temporal priority (real stack)', function () {
  this.timeout(180_000);
  let h: BridgeHarness;
  let fx: DlqReplayFixture;

  const orderMessage = (orderId: string, merchantId: string, lines = 1) =>
    buildEventMessage({
      eventType: 'OrderPlaced',
      aggregateId: orderId,
      aggregateVersion: 1,
      data: sampleOrderPlaced(orderId, { merchantId, lines }),
    });
  const workflowIdOf = (orderId: string) =>
    deriveWorkflowId('OrderPlaced', versionIdentity(orderId, 1));
  const describeWhenStarted = (orderId: string) =>
    waitFor(() => h.describe(workflowIdOf(orderId)), {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: `the run of ${orderId}`,
    });

  beforeEach(async () => {
    // 1500 bytes: a 40-line order is `oversized` (dead-lettered whole), a 1-line order is not.
    h = await new BridgeHarness({ maxMessageBytes: 1500 }).setUp(1);
    fx = new DlqReplayFixture(h);
  });
  afterEach(async () => {
    await h?.tearDown();
  });

  it('live: priority 2, the merchant as fairness key; replayed from the DLQ: priority 4, same key', async () => {
    const big = uniqueName('big-order');
    const live = uniqueName('live-order');
    const first = await h.startBridge();
    await h.produce([orderMessage(big, 'acme', 40)]);
    await h.waitUntilAllCommitted(90_000);
    await first.stop();
    assert.equal((await fx.list()).json.total, 1, 'precondition: the big order is dead-lettered');

    h.config.bridge.maxMessageBytes = 1_048_576; // the fix
    await h.startBridge();
    await h.produce([orderMessage(live, 'acme')]);
    const run = await fx.replay(['--yes', '--by', 'carol']);
    assert.equal(run.json.replayed, 1, run.stdout);

    const liveRun = await describeWhenStarted(live);
    assert.deepEqual(
      { key: liveRun.priority?.priorityKey, tenant: liveRun.priority?.fairnessKey },
      { key: 2, tenant: 'acme' },
      'a live event goes first, its merchant its fairness key',
    );
    const replayed = await describeWhenStarted(big);
    assert.deepEqual(
      { key: replayed.priority?.priorityKey, tenant: replayed.priority?.fairnessKey },
      { key: 4, tenant: 'acme' },
      'a replayed event goes behind live ones, in its tenant',
    );
    // `orders show` says what Temporal says: the tenant and the priority, as JSON and a line.
    const shown = await runOps(['orders', 'show', big, '--json'], fx.env());
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(
      { tenant: shown.json.tenant, priority: shown.json.priority },
      { tenant: 'acme', priority: 4 },
    );
    const human = await runOps(['orders', 'show', live], fx.env());
    assert.match(human.stdout, /priority: +2 \(live\) · tenant acme/);
    assert.match(
      (await replayed.staticDetails()) ?? '',
      /\*\*priority\*\* 4 · \*\*tenant\*\* `acme`/,
    );
  });

  it('a backfill bridge (its own group) starts the runs it re-reads at priority 4', async () => {
    const orderId = uniqueName('backfilled');
    await h.produce([orderMessage(orderId, 'globex')]);
    await h.startBridge({
      config: { ...h.config, bridge: { ...h.config.bridge, mode: 'backfill' } },
    });
    const run = await describeWhenStarted(orderId);
    assert.deepEqual(
      { key: run.priority?.priorityKey, tenant: run.priority?.fairnessKey },
      { key: 4, tenant: 'globex' },
    );
  });
});
