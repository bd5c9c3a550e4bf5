import { strict as assert } from 'node:assert';
import { quoteSchema } from '../../../src/config/schema-name';
import { BridgeHarness } from '../../support/bridge-harness';
import { DlqReplayFixture } from '../../support/dlq-replay-fixture';
import { runOps } from '../../support/ops-cli';

/**
 * `dlq reap` keeps dlq_replays as long as the DLQ it marks: the marks of entries Kafka no
 * longer holds are dropped (their entries can never be replayed again), an unconfirmed send's
 * mark stays, and the marks of entries still on the DLQ keep guarding them (real Kafka and
 * Postgres, the CLI as a child process).
 */
describe('ops CLI: dlq reap drops the marks of entries Kafka deleted (real Kafka and Postgres)', function () {
  this.timeout(120_000);
  let h: BridgeHarness;
  let fx: DlqReplayFixture;
  before(async () => {
    h = await new BridgeHarness().setUp(1);
    fx = new DlqReplayFixture(h);
  });
  after(async () => {
    await h?.tearDown();
  });

  const marks = async () =>
    (
      await h.pool.query<{ o: string; state: string }>(
        `SELECT dlq_offset::text AS o, state FROM ${quoteSchema(h.schema)}.dlq_replays ORDER BY dlq_offset`,
      )
    ).rows.map((r) => `${r.o}:${r.state}`);

  it('drops sent marks below the earliest offset, keeps an unconfirmed send and the rest', async () => {
    await fx.deadLetter(4);
    assert.equal((await fx.replay(['--yes', '--by', 'alice'])).json.replayed, 4);
    // Entry 1's send was never confirmed (a crash between the send and the confirmation).
    await h.pool.query(
      `UPDATE ${quoteSchema(h.schema)}.dlq_replays SET state = 'sending', sent_at = NULL
        WHERE dlq_offset = 1`,
    );
    // Retention deletes entries 0-2 (as BRIDGE_DLQ_RETENTION_DAYS would, in days).
    const admin = h.kafka.admin();
    await admin.connect();
    try {
      await admin.fetchTopicMetadata({ topics: [fx.dlqTopic] }); // deleteTopicRecords needs it loaded
      await admin.deleteTopicRecords({
        topic: fx.dlqTopic,
        partitions: [{ partition: 0, offset: '3' }],
      });
    } finally {
      await admin.disconnect();
    }

    const run = await runOps(['dlq', 'reap', '--json'], fx.env());
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.deepEqual(run.json, { topics: [fx.dlqTopic], partitions: 1, dropped: 2 });
    assert.deepEqual(await marks(), ['1:sending', '3:sent']);

    // What is left still guards its entry: nothing on the DLQ is offered again.
    const again = await fx.replay(['--dry-run']);
    assert.deepEqual(again.json.messages, []);
    // Reaping again drops nothing more.
    const second = await runOps(['dlq', 'reap', '--json'], fx.env());
    assert.equal(second.json.dropped, 0);
  });
});
