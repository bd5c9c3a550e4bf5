import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { ConfigResourceTypes } from 'kafkajs';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { deriveWorkflowId, versionIdentity } from '../../../src/events/identity';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { byOffset, DlqReplayFixture } from '../../support/dlq-replay-fixture';
import { uniqueName } from '../../support/services';

/**
 * A stub DLQ record (written when the DLQ refused the full record; src/kafka-bridge/dlq-stub.ts)
 * holds hashes and coordinates, not the message: `dlq replay` reads the original back from its
 * source topic, checks it against the stub's hashes and replays that, or refuses the stub with
 * the reason. The stubs here are written by a real bridge whose DLQ topic refuses the record.
 */
describe('ops CLI: dlq replay of a stub record (real bridge, Kafka, Postgres and Temporal)', function () {
  this.timeout(240_000);
  let h: BridgeHarness;
  let fx: DlqReplayFixture;
  const orderId = uniqueName('big-order');
  const workflowId = deriveWorkflowId('OrderPlaced', versionIdentity(orderId, 1));
  // ~30 KB, hardly compressible (random SKUs): over the bridge's 1000-byte limit (`oversized`)
  // and over the DLQ's 4 KiB, so the DLQ refuses the full record and takes the stub.
  const big = buildEventMessage({
    eventType: 'OrderPlaced',
    aggregateId: orderId,
    aggregateVersion: 1,
    data: sampleOrderPlaced(orderId, { lines: 300, sku: () => randomBytes(24).toString('hex') }),
  });

  beforeEach(async () => {
    h = await new BridgeHarness({ maxMessageBytes: 1000 }).setUp(1);
    fx = new DlqReplayFixture(h);
    const admin = h.kafka.admin();
    await admin.connect();
    try {
      await admin.alterConfigs({
        validateOnly: false,
        resources: [
          {
            type: ConfigResourceTypes.TOPIC,
            name: fx.dlqTopic,
            configEntries: [{ name: 'max.message.bytes', value: '4096' }],
          },
        ],
      });
    } finally {
      await admin.disconnect();
    }
    const bridge = await h.startBridge();
    await h.produce([big]);
    await h.waitUntilAllCommitted(90_000);
    await bridge.stop();
    const [entry] = (await fx.list()).json.messages;
    assert.equal(entry.stub, true, 'precondition: the DLQ holds a stub');
    assert.equal(entry.reason, 'oversized');
  });
  afterEach(async () => {
    await h?.tearDown();
  });

  it('replays the original read back from the source topic: one workflow, marked as the original', async () => {
    h.config.bridge.maxMessageBytes = 1_048_576; // the fix
    await h.startBridge();
    const run = await fx.replay(['--yes', '--by', 'carol']);
    assert.equal(run.json.replayed, 1, run.stdout);
    assert.deepEqual(run.json.messages[0].fromSource, {
      topic: h.topic,
      partition: 0,
      offset: '0',
    });
    const [original, replayed] = await fx.read(h.topic);
    assert.ok(replayed, 'a second record on the source topic');
    assert.ok(replayed.value!.equals(original!.value!), 'the original bytes, not the stub');
    assert.equal(replayed.key!.toString(), orderId);
    assert.equal(replayed.headers['event-id']!.toString(), big.headers['event-id']);
    assert.equal(replayed.headers['onceflow-replay-of']!.toString(), fx.entry(0));
    await waitFor(() => h.describe(workflowId), {
      timeoutMs: 60_000,
      intervalMs: 250,
      what: 'the order started from the replayed original',
    });
    await h.waitUntilAllCommitted();
    assert.equal(await h.ledgerCount(), 1);
    assert.equal((await fx.list()).json.total, 1, 'nothing dead-lettered again');

    const mark = byOffset(await fx.list()).get(0)!.replay;
    assert.equal(mark.sent, 'original');
    assert.equal(mark.by, 'carol');
    const again = await fx.replay(['--dry-run']);
    assert.deepEqual(again.json.messages, []);
    assert.equal(again.json.alreadyReplayed, 1);
  });

  it('a stub whose original the source topic no longer holds is refused with that reason, not marked, and offered again', async () => {
    const admin = h.kafka.admin();
    await admin.connect();
    try {
      // Retention deleted the original (as it does after the source's retention.ms).
      await admin.fetchTopicMetadata({ topics: [h.topic] });
      await admin.deleteTopicRecords({
        topic: h.topic,
        partitions: [{ partition: 0, offset: '-1' }],
      });
    } finally {
      await admin.disconnect();
    }
    const endsBefore = await h.endOffsets();
    const run = await fx.replay(['--yes']);
    assert.equal(run.json.replayed, 0);
    assert.equal(run.json.refused.length, 1);
    assert.equal(run.json.refused[0].stub, true);
    assert.match(run.json.refused[0].refusal, /no longer holds|retention/);
    assert.deepEqual(await h.endOffsets(), endsBefore, 'nothing sent');
    assert.equal(byOffset(await fx.list()).get(0)!.replay, null, 'not marked');
    const again = await fx.replay(['--dry-run']);
    assert.equal(again.json.refused.length, 1, 'offered (and refused) again');
  });
});
