import { strict as assert } from 'node:assert';
import pg from 'pg';
import { LedgerStoreError } from '../../../src/db/ledger-store';
import { DLQ_HEADER } from '../../../src/events/dlq-message';
import { handleBatch } from '../../../src/kafka-bridge/partition-batch';
import { waitFor } from '../../../src/util/wait';
import {
  FakeControls,
  batchOf,
  counterSum,
  fakeDeps,
  kafkaMessage,
  orderCancelled,
  orderPlaced,
} from './batch-fakes';

/** A batch's rows wait for the end of the batch unless a test says otherwise. */
const AT_BATCH_END = { ledgerWrites: { maxDelayMs: 60_000 } };

const econnrefused = () =>
  Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

/** A statement the database refuses for its data (SQLSTATE class 22): not transient. */
function refused(operation: string): Error {
  const err = new pg.DatabaseError('invalid byte sequence for encoding "UTF8"', 0, 'error');
  err.code = '22021';
  err.severity = 'ERROR';
  return new LedgerStoreError(operation, 'ledger', err);
}

describe('the batch’s ledger rows, written together (with fakes)', () => {
  it('one INSERT for the batch: a row per started message, none for dead letters or duplicates', async () => {
    const { deps, ledger, starter, dlq } = fakeDeps({}, AT_BATCH_END);
    // o-rej is a valid start Temporal refuses: dead-lettered start-rejected, no row.
    starter.outcome = (cmd) =>
      cmd.aggregateId === 'o-rej'
        ? { kind: 'rejected', error: 'refused' }
        : { kind: 'started', runId: `run-${cmd.workflowId}` };
    // o-dup is in the ledger already (a redelivery); its start is never made.
    const dup = orderPlaced('o-dup', 0);
    const seeded = fakeDeps({}, AT_BATCH_END);
    await handleBatch(batchOf([dup]), seeded.deps, new FakeControls());
    for (const [k, v] of seeded.ledger.rows) ledger.rows.set(k, v);
    const controls = new FakeControls();
    await handleBatch(
      batchOf([
        dup,
        orderPlaced('o-1', 1),
        kafkaMessage(2, { key: 'k', value: 'not json' }),
        orderPlaced('o-2', 3),
        orderPlaced('o-3', 4),
        orderPlaced('o-rej', 5),
      ]),
      deps,
      controls,
    );
    assert.equal(starter.calls.length, 4);
    assert.deepEqual([0, 1].map((i) => dlq.header(i, DLQ_HEADER.reason)).sort(), [
      'start-rejected',
      'unparseable',
    ]);
    assert.deepEqual(ledger.batches, [['v:o-1@1', 'v:o-2@1', 'v:o-3@1']]);
    assert.equal(ledger.calls.recordStarted, 0, 'no row written alone');
    assert.deepEqual(
      [...ledger.rows.values()].map((r) => [r.identity, r.sourceOffset]),
      [
        ['v:o-dup@1', '0'],
        ['v:o-1@1', '1'],
        ['v:o-2@1', '3'],
        ['v:o-3@1', '4'],
      ],
    );
    assert.deepEqual(controls.commits, ['6']);
  });

  it('writes the row of a start Temporal already had, which the ledger did not know', async () => {
    const { deps, ledger, starter } = fakeDeps({}, AT_BATCH_END);
    starter.outcome = () => ({ kind: 'duplicate', runId: 'run-earlier' });
    await handleBatch(batchOf([orderPlaced('o-1', 0)]), deps, new FakeControls());
    assert.equal(ledger.rows.get('v:o-1@1')?.runId, 'run-earlier');
  });

  it('a start slot does not wait for the rows: the next start begins while the INSERT is held', async () => {
    // One slot: before, the second start began only after the first message's own INSERT.
    const { deps, ledger, starter } = fakeDeps(
      {},
      { concurrency: 1, ledgerWrites: { maxDelayMs: 0 } },
    );
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    ledger.holdRecordAll = () => held;
    const controls = new FakeControls();
    const batch = handleBatch(
      batchOf([orderPlaced('o-1', 0), orderPlaced('o-2', 1), orderPlaced('o-3', 2)]),
      deps,
      controls,
    );
    try {
      await waitFor(() => starter.calls.length === 3, {
        timeoutMs: 5_000,
        intervalMs: 5,
        what: 'every start while the first INSERT is held',
      });
      assert.equal(ledger.rows.size, 0);
      assert.deepEqual(controls.commits, [], 'nothing committed before its row');
      assert.deepEqual(controls.resolved, [], 'nothing resolved before its row');
    } finally {
      release();
    }
    await batch;
    assert.equal(ledger.rows.size, 3);
    assert.deepEqual(controls.commits, ['3']);
  });

  it('a later event of the same aggregate starts only once the earlier one’s row is written', async () => {
    const { deps, ledger, starter } = fakeDeps({}, AT_BATCH_END);
    ledger.holdRecordAll = async (rows) => {
      starter.log.push(`write ${rows.map((r) => r.eventType).join(',')}`);
    };
    await handleBatch(
      batchOf([orderPlaced('o-1', 0), orderCancelled('o-1', 1)]),
      deps,
      new FakeControls(),
    );
    assert.deepEqual(starter.log, [
      'begin OrderPlaced',
      'end OrderPlaced',
      'write OrderPlaced',
      'begin OrderCancelled',
      'end OrderCancelled',
      'write OrderCancelled',
    ]);
  });

  it('a batch INSERT that keeps failing commits nothing past its messages', async () => {
    const { deps, ledger, dlq } = fakeDeps({}, AT_BATCH_END);
    const controls = new FakeControls();
    // Postgres down; the bridge is stopped after a few tries (shutdown during the outage).
    ledger.failRecordAll = (call) => {
      if (call >= 4) controls.running = false;
      return econnrefused();
    };
    await handleBatch(
      batchOf([kafkaMessage(0, { key: 'k', value: 'not json' }), orderPlaced('o-1', 1)]),
      deps,
      controls,
    );
    assert.ok(ledger.calls.recordAllStarted >= 4, 'retried while down');
    assert.equal(ledger.rows.size, 0);
    assert.equal(dlq.records.length, 1);
    assert.deepEqual(controls.commits, ['1'], 'past the dead letter, not past the unwritten start');
    assert.deepEqual(controls.resolved, ['0']);
    assert.equal(
      await counterSum(deps.metrics.transientRetries, { dependency: 'postgres' }),
      ledger.calls.recordAllStarted - 1,
    );
  });

  it('a row the database refuses: the others are written one by one, that message dead-lettered', async () => {
    const { deps, ledger, dlq } = fakeDeps({}, AT_BATCH_END);
    ledger.failRecordAll = () => refused('recordAllStarted');
    const bad = 'v:o-2@1';
    const recordOne = ledger.recordStarted.bind(ledger);
    ledger.recordStarted = async (row) => {
      if (row.identity === bad) throw refused('recordStarted');
      return recordOne(row);
    };
    const controls = new FakeControls();
    await handleBatch(
      batchOf([orderPlaced('o-1', 0), orderPlaced('o-2', 1), orderPlaced('o-3', 2)]),
      deps,
      controls,
    );
    assert.equal(ledger.calls.recordAllStarted, 3, 'the batch is tried a bounded number of times');
    assert.deepEqual([...ledger.rows.keys()].sort(), ['v:o-1@1', 'v:o-3@1']);
    assert.equal(dlq.records.length, 1);
    assert.equal(dlq.header(0, DLQ_HEADER.reason), 'processing-failed');
    assert.equal(dlq.header(0, DLQ_HEADER.sourceOffset), '1');
    assert.match(dlq.header(0, DLQ_HEADER.error)!, /invalid byte sequence/);
    assert.deepEqual(controls.commits, ['3']);
  });

  it('a partition lost while its start finishes: the row is still written, nothing committed', async () => {
    const { deps, ledger, starter } = fakeDeps({}, AT_BATCH_END);
    const controls = new FakeControls();
    starter.outcome = (cmd) => {
      controls.owned = false;
      return { kind: 'started', runId: `run-${cmd.workflowId}` };
    };
    await handleBatch(batchOf([orderPlaced('o-1', 0)]), deps, controls);
    assert.equal(ledger.rows.size, 1, 'the new owner finds the start in the ledger');
    assert.deepEqual(controls.commits, []);
  });

  it('flushes on its own after maxDelayMs, before the batch ends', async () => {
    const { deps, ledger, starter } = fakeDeps({}, { ledgerWrites: { maxDelayMs: 5 } });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    starter.hold = (cmd) => (cmd.aggregateId === 'o-2' ? held : Promise.resolve());
    const batch = handleBatch(
      batchOf([orderPlaced('o-1', 0), orderPlaced('o-2', 1)]),
      deps,
      new FakeControls(),
    );
    try {
      await waitFor(() => ledger.rows.has('v:o-1@1'), {
        timeoutMs: 5_000,
        intervalMs: 5,
        what: 'the first row while the second start is held',
      });
    } finally {
      release();
    }
    await batch;
    assert.deepEqual(ledger.batches, [['v:o-1@1'], ['v:o-2@1']]);
  });
});
