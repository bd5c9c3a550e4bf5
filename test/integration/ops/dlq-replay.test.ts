import { strict as assert } from 'node:assert';
import { quoteSchema } from '../../../src/config/schema-name';
import { ensureTopics } from '../../../src/kafka/topics';
import { BridgeHarness } from '../../support/bridge-harness';
import { byOffset, DlqReplayFixture } from '../../support/dlq-replay-fixture';
import { runOps } from '../../support/ops-cli';
import { uniqueName } from '../../support/services';

/**
 * `dlq replay` replays each DLQ entry at most once, ever (real Kafka and Postgres, the CLI as a
 * child process). No bridge runs: what a replay sent stays on the source topic, where each
 * copy is counted by its `onceflow-replay-of` header, and nothing comes back to the DLQ to blur
 * "offered again". Each test has its own topic, DLQ, schema and consumer group.
 */
describe('ops CLI: dlq replay marks outlive Kafka (real Kafka and Postgres)', function () {
  this.timeout(180_000);
  let h: BridgeHarness;
  let fx: DlqReplayFixture;

  beforeEach(async () => {
    h = await new BridgeHarness().setUp(1);
    fx = new DlqReplayFixture(h);
  });
  afterEach(async () => {
    await h?.tearDown();
  });

  it('after Kafka expired the consumer-group offsets, nothing replayed is offered again; dlq list says when and by whom', async () => {
    await fx.deadLetter(3);
    // A 4th entry names a topic outside KAFKA_TOPICS: refused, so never marked.
    await fx.deadLetter(1, { sourceTopic: uniqueName('elsewhere') });
    const before = Date.now();
    const first = await fx.replay(['--yes', '--by', 'alice']);
    assert.equal(first.json.replayed, 3);
    assert.equal(first.json.refusedForeignTopic, 1);
    assert.deepEqual([...(await fx.copies(h.topic)).values()], [1, 1, 1]);

    // Eight days later: whatever Kafka kept for the CLI has expired.
    await fx.expireLegacyMarks();

    const again = await fx.replay(['--dry-run']);
    assert.deepEqual(again.json.messages, [], 'nothing already replayed is offered again');
    assert.equal(again.json.alreadyReplayed, 3);
    assert.equal(again.json.refusedForeignTopic, 1, 'the refused entry is offered (and refused)');

    const entries = byOffset(await fx.list());
    for (const offset of [0, 1, 2]) {
      const replay = entries.get(offset)!.replay;
      assert.equal(replay.state, 'sent', `entry ${offset}`);
      assert.equal(replay.by, 'alice');
      assert.equal(replay.sent, 'entry');
      assert.equal(replay.to, h.topic);
      const at = Date.parse(replay.sentAt);
      assert.ok(at >= before - 1000 && at <= Date.now() + 1000, `sent at ${replay.sentAt}`);
    }
    assert.equal(entries.get(3)!.replay, null, 'the refused entry carries no mark');
    const human = await runOps(['dlq', 'list'], fx.env());
    assert.match(human.stdout, /replayed: 3/);
    assert.equal(human.stdout.match(/ alice /g)?.length, 3, human.stdout);

    const third = await fx.replay(['--yes']);
    assert.equal(third.json.replayed, 0);
    assert.deepEqual([...(await fx.copies(h.topic)).values()], [1, 1, 1], 'still one copy each');
  });

  it('an entry refused for its topic is not marked: once its topic is allowed it is replayed, once', async () => {
    const other = uniqueName('orders_b');
    await ensureTopics(h.kafka, { topics: [other], partitions: 1 });
    await fx.deadLetter(1);
    await fx.deadLetter(1, { sourceTopic: other });

    const first = await fx.replay(['--yes']);
    assert.equal(first.json.replayed, 1);
    assert.equal(first.json.refusedForeignTopic, 1);

    // The operator adds the missing topic to KAFKA_TOPICS and replays again.
    const both = { KAFKA_TOPICS: `${h.topic},${other}` };
    const second = await fx.replay(['--yes'], both);
    assert.equal(second.json.replayed, 1, 'the entry refused before is replayed now');
    assert.equal(second.json.alreadyReplayed, 1);
    assert.equal(second.json.messages[0].replayTo, other);
    assert.deepEqual([...(await fx.copies(other)).entries()], [[fx.entry(1), 1]]);
    assert.deepEqual([...(await fx.copies(h.topic)).entries()], [[fx.entry(0), 1]]);

    const third = await fx.replay(['--yes'], both);
    assert.equal(third.json.replayed, 0);
    assert.equal(third.json.alreadyReplayed, 2);
  });

  it('upgrade: marks left in consumer groups by the earlier CLI still count, also once Kafka expired them', async () => {
    await fx.deadLetter(2);
    // The earlier CLI replayed these two and kept that as the group's committed offset 2.
    await fx.setLegacyMark(2);
    await fx.deadLetter(1);

    const dry = await fx.replay(['--dry-run']);
    assert.deepEqual(
      dry.json.messages.map((m: { offset: string }) => m.offset),
      ['2'],
      'only the entry after the old mark is offered',
    );
    assert.equal(dry.json.alreadyReplayed, 2);
    const entries = byOffset(await fx.list());
    assert.equal(entries.get(0)!.replay.state, 'adopted');
    assert.equal(entries.get(1)!.replay.state, 'adopted');
    assert.equal(entries.get(2)!.replay, null);

    const expired = await fx.expireLegacyMarks();
    assert.equal(expired.length, 1, 'the old group existed until now');
    const run = await fx.replay(['--yes', '--by', 'bob']);
    assert.equal(run.json.replayed, 1);
    assert.equal(run.json.alreadyReplayed, 2, 'the old marks outlived their consumer group');
    assert.deepEqual([...(await fx.copies(h.topic)).entries()], [[fx.entry(2), 1]]);
  });

  it('without migration 0007 (setup not run after the upgrade) replay refuses before sending; list still lists', async () => {
    await fx.deadLetter(2);
    await h.pool.query(`DROP TABLE ${quoteSchema(h.schema)}.dlq_replays`);
    const endsBefore = await h.endOffsets();
    const run = await fx.replay(['--yes'], {}, 1);
    assert.match(run.json.message, /dlq_replays does not exist.*npm run setup/);
    assert.deepEqual(await h.endOffsets(), endsBefore, 'nothing sent without a place to mark it');
    const list = await fx.list();
    assert.equal(list.json.total, 2);
    assert.match(list.json.replayMarksError, /dlq_replays does not exist/);
    assert.match(list.stderr, /replay marks unavailable/);
  });
});
