import { strict as assert } from 'node:assert';
import { randomInt } from 'node:crypto';
import { ConfigResourceTypes } from 'kafkajs';
import pg from 'pg';
import { quoteSchema } from '../../../src/config/schema-name';
import { ensureTopics } from '../../../src/kafka/topics';
import { REPLAY_BATCH } from '../../../src/ops/dlq-replay-send';
import { waitFor } from '../../../src/util/wait';
import { BridgeHarness } from '../../support/bridge-harness';
import { byOffset, DlqReplayFixture } from '../../support/dlq-replay-fixture';
import { startOps } from '../../support/ops-cli';
import { uniqueName } from '../../support/services';

/** Entries per produce call of `dlq replay`: the first BATCH entries are one batch. */
const BATCH = REPLAY_BATCH;

/**
 * `dlq replay` stopped between a send and its mark resumes: entries already marked are never
 * sent again; entries whose send was not confirmed are sent again (harmless: the bridge
 * deduplicates by identity; docs/operations.md, "The DLQ"). Real Kafka, Postgres and CLI
 * processes; no bridge, so every copy a replay sent stays on the source topic to be counted.
 */
describe('ops CLI: dlq replay resumes after a failure or a crash (real Kafka and Postgres)', function () {
  this.timeout(240_000);
  let h: BridgeHarness;
  let fx: DlqReplayFixture;

  beforeEach(async () => {
    h = await new BridgeHarness().setUp(1);
    fx = new DlqReplayFixture(h);
  });
  afterEach(async () => {
    await h?.tearDown();
  });

  /** Copies on `topic` of DLQ entries from..to-1, as counts. */
  const countsOf = async (topic: string, from: number, to: number) => {
    const copies = await fx.copies(topic);
    return Array.from({ length: to - from }, (_, i) => copies.get(fx.entry(from + i)) ?? 0);
  };
  const ones = (n: number) => Array.from({ length: n }, () => 1);

  it('a source topic that refuses the second batch: the rerun sends that batch only', async () => {
    // The second batch goes to a topic that refuses it (its records are over its size limit).
    const tight = uniqueName('orders_tight');
    const admin = h.kafka.admin();
    await admin.connect();
    // Sets the topic's size limit and waits until the broker applies it.
    const setLimit = async (bytes: number) => {
      await admin.alterConfigs({
        validateOnly: false,
        resources: [
          {
            type: ConfigResourceTypes.TOPIC,
            name: tight,
            configEntries: [{ name: 'max.message.bytes', value: String(bytes) }],
          },
        ],
      });
      await waitFor(
        async () => {
          const { resources } = await admin.describeConfigs({
            includeSynonyms: false,
            resources: [{ type: ConfigResourceTypes.TOPIC, name: tight }],
          });
          const entry = resources[0]?.configEntries.find(
            (e) => e.configName === 'max.message.bytes',
          );
          return entry?.configValue === String(bytes);
        },
        { timeoutMs: 30_000, intervalMs: 100, what: `max.message.bytes ${bytes} on ${tight}` },
      );
    };
    try {
      await ensureTopics(h.kafka, { topics: [tight], partitions: 1 });
      await setLimit(512);
      await fx.deadLetter(BATCH);
      await fx.deadLetter(50, { sourceTopic: tight, valueBytes: 1024 });
      const env = { KAFKA_TOPICS: `${h.topic},${tight}` };

      const first = await fx.replay(['--yes'], env, 1);
      assert.equal(first.json.replayed, BATCH, 'the first batch was sent and marked');
      assert.equal(first.json.unconfirmed, 50);
      assert.match(first.json.error, /MESSAGE_TOO_LARGE|larger than/i);
      const listed = byOffset(await fx.list(env));
      assert.equal(listed.get(0)!.replay.state, 'sent');
      assert.equal(listed.get(BATCH)!.replay.state, 'sending', 'unconfirmed, visible');

      await setLimit(1024 * 1024);
      const second = await fx.replay(['--yes'], env);
      assert.equal(second.json.replayed, 50);
      assert.equal(second.json.resent, 50);
      assert.equal(second.json.alreadyReplayed, BATCH);
      assert.deepEqual(await countsOf(h.topic, 0, BATCH), ones(BATCH), 'batch 1 sent once');
      assert.deepEqual(await countsOf(tight, BATCH, BATCH + 50), ones(50), 'batch 2 sent once');
      assert.equal((await fx.replay(['--yes'], env)).json.replayed, 0);
    } finally {
      await admin.disconnect();
    }
  });

  /**
   * Makes whoever marks an entry at offset >= BATCH as sent wait for a lock this test holds,
   * so a CLI run can be caught exactly after the second batch went to Kafka and before its
   * mark is written. `waiting()` is the pid of the held backend, once it waits.
   */
  async function holdSecondBatchMark() {
    const lockKey = randomInt(1, 2 ** 31 - 1);
    const schema = quoteSchema(h.schema);
    const holder = new pg.Client({ connectionString: h.config.database.url });
    await holder.connect();
    await holder.query(`
      CREATE FUNCTION ${schema}.hold_mark() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock(${lockKey}); RETURN NEW; END $$;
      CREATE TRIGGER hold_mark BEFORE UPDATE ON ${schema}.dlq_replays FOR EACH ROW
        WHEN (NEW.state = 'sent' AND NEW.dlq_offset >= ${BATCH})
        EXECUTE FUNCTION ${schema}.hold_mark();`);
    await holder.query('SELECT pg_advisory_lock($1)', [lockKey]);
    return {
      holder,
      waiting: () =>
        waitFor(
          async () => {
            const { rows } = await holder.query<{ pid: number }>(
              `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = $1`,
              [lockKey],
            );
            return rows[0]?.pid;
          },
          { timeoutMs: 90_000, intervalMs: 100, what: 'the mark of the second batch waiting' },
        ),
      // Unlock first: dropping the trigger waits for the held statement's table lock.
      release: async () => {
        await holder.query('SELECT pg_advisory_unlock($1)', [lockKey]);
        await holder.query(`DROP TRIGGER hold_mark ON ${schema}.dlq_replays`);
      },
    };
  }

  it('a process killed between sending a batch and marking it: the rerun sends that batch again, and only that batch', async () => {
    await fx.deadLetter(BATCH + 50);
    const hold = await holdSecondBatchMark();
    try {
      const run = startOps(['dlq', 'replay', '--yes', '--json'], fx.env());
      const pid = await hold.waiting();
      assert.deepEqual(await countsOf(h.topic, 0, BATCH + 50), ones(BATCH + 50), 'all sent');
      run.child.kill('SIGKILL');
      assert.equal((await run.done).code, null, 'killed');
      // The dead client's statement would still commit once it got the lock: end it too.
      await hold.holder.query('SELECT pg_terminate_backend($1)', [pid]);
      await hold.release();

      const listed = byOffset(await fx.list());
      assert.equal(listed.get(BATCH - 1)!.replay.state, 'sent');
      assert.equal(listed.get(BATCH)!.replay.state, 'sending');

      const second = await fx.replay(['--yes']);
      assert.equal(second.json.replayed, 50);
      assert.equal(second.json.resent, 50);
      assert.equal(second.json.alreadyReplayed, BATCH);
      assert.deepEqual(await countsOf(h.topic, 0, BATCH), ones(BATCH), 'marked: never again');
      assert.deepEqual(
        await countsOf(h.topic, BATCH, BATCH + 50),
        Array.from({ length: 50 }, () => 2),
        'unconfirmed: sent again, once',
      );
      const after = byOffset(await fx.list());
      assert.equal(after.get(BATCH)!.replay.state, 'sent');
      assert.equal(after.get(BATCH)!.replay.attempts, 2);
      assert.equal((await fx.replay(['--yes'])).json.replayed, 0);
    } finally {
      await hold.holder.end();
    }
  });

  it('a second replay while one is still sending is refused and sends nothing', async () => {
    await fx.deadLetter(BATCH + 50);
    const hold = await holdSecondBatchMark();
    try {
      const first = startOps(['dlq', 'replay', '--yes', '--json'], fx.env());
      await hold.waiting();
      const second = await fx.replay(['--yes'], {}, 1);
      assert.match(second.json.message, /another dlq replay is running/);
      await hold.release();
      const done = await first.done;
      assert.equal(done.code, 0, done.stderr);
      assert.equal(done.json.replayed, BATCH + 50);
      assert.deepEqual(await countsOf(h.topic, 0, BATCH + 50), ones(BATCH + 50), 'each once');
    } finally {
      await hold.holder.end();
    }
  });
});
