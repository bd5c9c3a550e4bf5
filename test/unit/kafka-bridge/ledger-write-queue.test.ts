import { strict as assert } from 'node:assert';
import { LedgerWriteQueue } from '../../../src/kafka-bridge/ledger-write-queue';
import { handleBatch } from '../../../src/kafka-bridge/partition-batch';
import { waitFor } from '../../../src/util/wait';
import { FakeControls, FakeLedger, batchOf, fakeDeps, orderPlaced } from './batch-fakes';

const econnrefused = () =>
  Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

/**
 * Two partitions' batches on one queue, as the bridge runs them. Partition 0 has o-a;
 * partition 1 has o-b and o-c. o-a's start is held until o-b's row is pending and o-c's until
 * o-a's is, so partition 0 ends (and flushes) with both rows waiting and partition 1 still
 * busy; o-c's row goes out on its own afterwards.
 */
async function twoPartitions(ledger: FakeLedger, queue: LedgerWriteQueue) {
  const p0 = fakeDeps({ ledger }, { ledgerQueue: queue });
  const p1 = fakeDeps({ ledger }, { ledgerQueue: queue });
  const gate = () => {
    let open!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    return { open, opened };
  };
  const bPending = gate();
  const aPending = gate();
  let noted = 0;
  const note = queue.notePending.bind(queue);
  queue.notePending = (member) => {
    note(member);
    if (++noted === 1) bPending.open();
    if (noted === 2) aPending.open();
  };
  p0.starter.hold = () => bPending.opened;
  p1.starter.hold = (cmd) => (cmd.aggregateId === 'o-c' ? aPending.opened : Promise.resolve());
  const c0 = new FakeControls();
  const c1 = new FakeControls();
  const done = Promise.all([
    handleBatch(batchOf([orderPlaced('o-a', 0)], 'orders', 0), p0.deps, c0),
    handleBatch(batchOf([orderPlaced('o-b', 0), orderPlaced('o-c', 1)], 'orders', 1), p1.deps, c1),
  ]);
  return { done, c0, c1, p0, p1 };
}

describe('the bridge’s ledger write queue (with fakes)', () => {
  it('rows of different partitions share one INSERT', async () => {
    const ledger = new FakeLedger();
    // Only a flush a batch asks for writes here: the timer would fire after the test.
    const queue = new LedgerWriteQueue(ledger, { maxDelayMs: 60_000 });
    const { done, c0, c1 } = await twoPartitions(ledger, queue);
    await done;
    assert.deepEqual(ledger.batches, [['v:o-b@1', 'v:o-a@1'], ['v:o-c@1']]);
    assert.deepEqual(c0.commits, ['1']);
    assert.deepEqual(c1.commits, ['2']);
  });

  it('a failed shared INSERT is written again by each partition alone, the failure its first try', async () => {
    const ledger = new FakeLedger();
    ledger.failRecordAll = (call) => (call === 1 ? econnrefused() : undefined);
    const queue = new LedgerWriteQueue(ledger, { maxDelayMs: 60_000 });
    const { done, c0, c1, p0, p1 } = await twoPartitions(ledger, queue);
    await done;
    assert.deepEqual(
      [...ledger.batches].sort(),
      [['v:o-a@1'], ['v:o-b@1'], ['v:o-c@1']],
      'after the failed shared try, each partition wrote its own row; o-c went out alone',
    );
    assert.equal(ledger.calls.recordAllStarted, 4, 'shared try, one per partition, then o-c');
    assert.deepEqual([...ledger.rows.keys()].sort(), ['v:o-a@1', 'v:o-b@1', 'v:o-c@1']);
    assert.deepEqual(c0.commits, ['1']);
    assert.deepEqual(c1.commits, ['2']);
    for (const { deps } of [p0, p1]) {
      const { values } = await deps.metrics.transientRetries.get();
      assert.deepEqual(
        values.map((v) => [v.labels.dependency, v.value]),
        [['postgres', 1]],
        'each partition counts the shared failure as its own first try',
      );
    }
  });

  it('flushes on its own after maxDelayMs, and at maxRows at once', async () => {
    const ledger = new FakeLedger();
    const settled: string[] = [];
    const member = (name: string, n: number) => {
      let rows = Array.from({ length: n }, (_, i) => ({
        ref: `${name}${i}`,
        row: { identity: `${name}${i}` } as never,
      }));
      return {
        takePending: () => {
          const out = rows;
          rows = [];
          return out;
        },
        settle: (r: Array<{ ref: string }>, result: { written: boolean }) =>
          settled.push(...r.map((x) => `${x.ref}:${result.written}`)),
      };
    };
    const timed = new LedgerWriteQueue(ledger, { maxDelayMs: 5, maxRows: 100 });
    timed.notePending(member('t', 1));
    await waitFor(() => settled.length === 1, {
      timeoutMs: 5_000,
      intervalMs: 2,
      what: 'the timer’s flush',
    });
    const full = new LedgerWriteQueue(ledger, { maxDelayMs: 60_000, maxRows: 2 });
    const m = member('f', 2);
    full.notePending(m);
    full.notePending(m);
    await full.flush();
    assert.deepEqual(ledger.batches, [['t0'], ['f0', 'f1']]);
    assert.deepEqual(settled, ['t0:true', 'f0:true', 'f1:true']);
  });

  it('a batch that is over ignores what later happens to its rows', async () => {
    const ledger = new FakeLedger();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inFlight = false;
    ledger.holdRecordAll = () => {
      inFlight = true;
      return held;
    };
    const queue = new LedgerWriteQueue(ledger, { maxDelayMs: 60_000 });
    const { deps } = fakeDeps({ ledger }, { ledgerQueue: queue });
    const controls = new FakeControls();
    // The partition is lost while its INSERT hangs: the batch gives the row up after the
    // grace and ends without a commit; the INSERT then succeeds.
    const batch = handleBatch(batchOf([orderPlaced('o-1', 0)]), deps, controls);
    await waitFor(() => inFlight, { timeoutMs: 5_000, intervalMs: 2, what: 'the INSERT' });
    controls.owned = false;
    await batch;
    release();
    await queue.flush();
    assert.equal(ledger.rows.size, 1, 'the row is written: the new owner finds the start');
    assert.deepEqual(controls.resolved, [], 'nothing resolved for a batch that is over');
    assert.deepEqual(controls.commits, []);
  });
});
