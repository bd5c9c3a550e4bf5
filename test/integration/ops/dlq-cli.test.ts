import { strict as assert } from 'node:assert';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import { waitFor } from '../../../src/util/wait';
import type { RunningBridge } from '../../../src/kafka-bridge/bridge';
import { BridgeHarness } from '../../support/bridge-harness';
import { runOps } from '../../support/ops-cli';
import { uniqueName } from '../../support/services';

/**
 * `dlq list` and `dlq replay` against the real broker, bridge and Temporal: a message
 * dead-lettered as `oversized` by a bridge with a tiny size limit is replayed after the limit
 * is fixed and ends in exactly one workflow; replaying again starts nothing new.
 */
describe('ops CLI: dlq (real Kafka, bridge and Temporal)', function () {
  this.timeout(180_000);
  let h: BridgeHarness;
  let cliEnv: Record<string, string>;
  let bridge: RunningBridge;
  const orderId = uniqueName('order');
  const workflowId = deriveWorkflowId('OrderPlaced', versionIdentity(orderId, 1));

  const dlq = async (args: string[] = []) => {
    const run = await runOps(['dlq', 'list', '--json', ...args], cliEnv);
    assert.equal(run.code, 0, run.stderr);
    return run.json as {
      total: number;
      byReason: Record<string, number>;
      messages: Array<Record<string, string>>;
    };
  };
  const waitForDlq = (total: number) =>
    waitFor(async () => ((await dlq()).total >= total ? dlq() : undefined), {
      timeoutMs: 60_000,
      intervalMs: 500,
      what: `${total} DLQ messages`,
    });

  before(async () => {
    // 100 bytes: every real order is "oversized" until the setting is fixed.
    h = await new BridgeHarness({ maxMessageBytes: 100 }).setUp(2);
    cliEnv = { KAFKA_TOPICS: h.topic, DATABASE_SCHEMA: h.schema };
    bridge = await h.startBridge();
    await h.produce([
      buildEventMessage({
        eventType: 'OrderPlaced',
        aggregateId: orderId,
        aggregateVersion: 1,
        data: sampleOrderPlaced(orderId),
      }),
      { key: 'broken', value: 'not json', headers: { 'event-type': 'OrderPlaced' } },
    ]);
    await h.waitUntilAllCommitted();
  });
  after(async () => {
    await h?.tearDown();
  });

  it('dlq list shows both poison messages with reason, source and first failure', async () => {
    const all = await waitForDlq(2);
    assert.equal(all.total, 2);
    assert.deepEqual(all.byReason, { oversized: 1, unparseable: 1 });
    const oversized = all.messages.find((m) => m.reason === 'oversized')!;
    assert.equal(oversized.key, orderId);
    assert.equal(oversized.sourceTopic, h.topic);
    assert.equal(oversized.failureCount, '1');
    assert.ok(oversized.firstFailedAt);

    const filtered = await dlq(['--reason', 'unparseable']);
    assert.equal(filtered.total, 1);
    assert.equal(filtered.messages[0]!.key, 'broken');
    assert.equal((await dlq(['--topic', h.topic, '--limit', '1'])).messages.length, 1);

    const human = await runOps(['dlq', 'list'], cliEnv);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /oversized: 1/);
  });

  it('dlq replay --dry-run sends nothing', async () => {
    const endsBefore = await h.endOffsets();
    const run = await runOps(
      ['dlq', 'replay', '--reason', 'oversized', '--dry-run', '--json'],
      cliEnv,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.json.dryRun, true);
    assert.equal(run.json.replayed, 0);
    assert.equal(run.json.messages.length, 1);
    assert.equal(run.json.messages[0].replayTo, h.topic);
    assert.deepEqual(await h.endOffsets(), endsBefore);
    assert.equal(await h.ledgerCount(), 0);
    assert.equal(await h.describe(workflowId), undefined);
  });

  it('dlq replay of the fixed message ends in exactly one workflow; a second replay starts nothing new', async () => {
    // The fix: a bridge with a sensible size limit (same group, so it resumes where it was).
    await bridge.stop();
    h.config.bridge.maxMessageBytes = 1_048_576;
    bridge = await h.startBridge();

    // Without --yes and without a terminal to ask on, nothing is sent.
    const endsBefore = await h.endOffsets();
    const unconfirmed = await runOps(['dlq', 'replay', '--reason', 'oversized'], cliEnv);
    assert.equal(unconfirmed.code, 2, unconfirmed.stderr);
    assert.match(unconfirmed.stderr, /confirm with --yes/);
    assert.deepEqual(await h.endOffsets(), endsBefore);

    const first = await runOps(
      ['dlq', 'replay', '--reason', 'oversized', '--yes', '--json'],
      cliEnv,
    );
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.json.replayed, 1);
    assert.match(first.stderr, /replaying.*1\/1/);
    const run = await waitFor(() => h.describe(workflowId), {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: 'the replayed order started',
    });
    await h.waitUntilAllCommitted();
    assert.equal(await h.ledgerCount(), 1);

    assert.match(first.stderr, /"msg":"dlq replay".*"replayed":1.*"reasons":\{"oversized":1\}/);
    const second = await runOps(
      ['dlq', 'replay', '--reason', 'oversized', '--yes', '--json'],
      cliEnv,
    );
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.json.replayed, 0, 'a second run replays nothing already replayed');
    assert.equal(second.json.alreadyReplayed, 1);
    // Nor does an unfiltered run: the entry is marked for every later replay.
    const unfiltered = await runOps(['dlq', 'replay', '--dry-run', '--json'], cliEnv);
    assert.equal(
      unfiltered.json.messages.some((m: { reason: string }) => m.reason === 'oversized'),
      false,
    );
    await h.waitUntilAllCommitted();
    assert.equal(await h.ledgerCount(), 1, 'no second ledger row');
    assert.equal((await h.describe(workflowId))!.runId, run.runId, 'the same single run');
    const visible = await waitFor(
      async () => {
        const { count } = await h.client.workflow.count(`EntityId = '${orderId}'`);
        return count >= 1 ? count : undefined;
      },
      { timeoutMs: 30_000, what: 'the order in visibility' },
    );
    assert.equal(visible, 1, 'exactly one workflow for the order');
    assert.equal((await dlq()).total, 2, 'nothing new dead-lettered');
  });

  it('a replayed message that is still poison keeps its first failure time and counts up', async () => {
    const before = (await dlq(['--reason', 'unparseable'])).messages[0]!;
    const run = await runOps(['dlq', 'replay', '--reason', 'unparseable', '--yes'], cliEnv);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /audit: \S+ replayed 1 message\(s\) \(unparseable: 1\)/);
    const after = await waitFor(
      async () => {
        const list = await dlq(['--reason', 'unparseable']);
        return list.total === 2 ? list.messages[1] : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'the re-failed message in the DLQ' },
    );
    assert.equal(after!.firstFailedAt, before.firstFailedAt);
    assert.equal(after!.failureCount, '2');
    assert.equal(after!.key, 'broken');

    // Replayed twice, still poison: one new entry per run (2 → 3), never a doubling (2 → 4).
    const again = await runOps(
      ['dlq', 'replay', '--reason', 'unparseable', '--yes', '--json'],
      cliEnv,
    );
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.json.replayed, 1, 'only the entry that failed after the last replay');
    assert.equal(again.json.alreadyReplayed, 1);
    const third = await waitFor(
      async () => {
        const list = await dlq(['--reason', 'unparseable']);
        return list.total >= 3 ? list : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'the third unparseable entry' },
    );
    assert.equal(third.total, 3);
    assert.equal(third.messages[2]!.failureCount, '3');
  });

  it('refuses to replay into a topic outside KAFKA_TOPICS (a forged dlq-source-topic)', async () => {
    const foreign = uniqueName('someone-elses-topic');
    const producer = h.kafka.producer();
    await producer.connect();
    try {
      await producer.send({
        topic: `${h.topic}.dlq`,
        messages: [
          {
            key: 'forged',
            value: '{}',
            headers: { 'dlq-reason': 'forged', 'dlq-source-topic': foreign },
          },
        ],
      });
    } finally {
      await producer.disconnect();
    }
    const run = await runOps(['dlq', 'replay', '--reason', 'forged', '--yes', '--json'], cliEnv);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.json.replayed, 0);
    assert.equal(run.json.refusedForeignTopic, 1);
    assert.equal(run.json.refused[0].sourceTopic, foreign);
    // Refused entries are not marked: a second run offers the entry again and refuses it again,
    // naming the topic only as the reason, never as a destination (the plan table, before the
    // blank line that starts the refused table).
    const human = await runOps(['dlq', 'replay', '--reason', 'forged', '--dry-run'], cliEnv);
    const [planTable, refusedTable] = human.stdout.split('\n\n');
    assert.doesNotMatch(planTable!, new RegExp(foreign));
    assert.match(refusedTable!, new RegExp(`${foreign} is not in KAFKA_TOPICS`));
  });

  it('dlq of a topic without a DLQ is empty; a DLQ name as --topic is a usage error', async () => {
    const empty = await runOps(['dlq', 'list', '--json'], { KAFKA_TOPICS: uniqueName('none') });
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.json.total, 0);
    const usage = await runOps(['dlq', 'list', '--topic', `${h.topic}.dlq`], cliEnv);
    assert.equal(usage.code, 2);
  });
});
