import { strict as assert } from 'node:assert';
import pino from 'pino';
import { DetachedBatches } from '../../../src/kafka-bridge/detached-batches';
import { callDependency, SLOW_CALL_MS } from '../../../src/kafka-bridge/dependency-call';
import { PartitionPauses, type PartitionWait } from '../../../src/kafka-bridge/partition-pauses';

/** A consumer's pause and resume, recorded. */
function fakeConsumer() {
  const calls: string[] = [];
  const of = (tps: Array<{ topic: string; partitions?: number[] }>) =>
    tps.map((tp) => `${tp.topic}/${tp.partitions?.join(',')}`).join(' ');
  return {
    calls,
    pause: (tps: Array<{ topic: string; partitions?: number[] }>) =>
      void calls.push(`pause ${of(tps)}`),
    resume: (tps: Array<{ topic: string; partitions?: number[] }>) =>
      void calls.push(`resume ${of(tps)}`),
  };
}

/** A promise and its resolve, to end a fake batch when the test says so. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

const log = pino({ level: 'silent' });

describe('DetachedBatches: a stall stays on its partition (with fakes)', () => {
  it('a batch that never waits is handled inside eachBatch: nothing paused', async () => {
    const consumer = fakeConsumer();
    const batches = new DetachedBatches(consumer, new PartitionPauses(), log);
    let handled = false;
    await batches.run('orders', 0, async () => void (handled = true));
    assert.ok(handled);
    assert.deepEqual(consumer.calls, []);
  });

  it('a batch that waits on its environment: its partition is paused and eachBatch returns; it is resumed when the batch ends', async () => {
    const consumer = fakeConsumer();
    const pauses = new PartitionPauses();
    const batches = new DetachedBatches(consumer, pauses, log);
    const end = gate();
    let done = false;
    await batches.run('orders', 2, async (onWait) => {
      onWait({ dependency: 'registry', fault: 'slow' });
      onWait({ dependency: 'registry', fault: 'unavailable' });
      await end.opened;
      done = true;
    });
    assert.equal(done, false, 'eachBatch returned while the batch goes on');
    assert.deepEqual(consumer.calls, ['pause orders/2']);
    assert.deepEqual(
      pauses.list().map((p) => [p.topic, p.partition, p.dependency, p.fault]),
      [['orders', 2, 'registry', 'unavailable']],
      'the latest reason',
    );
    // Fetched again meanwhile (a restarted consumer forgot the pause): paused again, not handled.
    let again = false;
    await batches.run('orders', 2, async () => void (again = true));
    assert.equal(again, false);
    assert.deepEqual(consumer.calls, ['pause orders/2', 'pause orders/2']);

    end.open();
    await batches.drain();
    assert.ok(done);
    assert.deepEqual(consumer.calls.at(-1), 'resume orders/2');
    assert.deepEqual(pauses.list(), []);
    assert.equal(batches.size, 0);
  });

  it('a batch that fails before it waits fails eachBatch, as before; after, it only resumes', async () => {
    const consumer = fakeConsumer();
    const batches = new DetachedBatches(consumer, new PartitionPauses(), log);
    await assert.rejects(
      batches.run('orders', 0, async () => {
        throw new Error('commit refused');
      }),
      /commit refused/,
    );
    await batches.run('orders', 1, async (onWait) => {
      onWait({ dependency: 'temporal', fault: 'unavailable' });
      await new Promise((r) => setTimeout(r, 5));
      throw new Error('rebalanced');
    });
    await batches.drain();
    assert.deepEqual(consumer.calls, ['pause orders/1', 'resume orders/1']);
  });

  it('a hold released after a newer one took the partition resumes nothing', () => {
    const consumer = fakeConsumer();
    const pauses = new PartitionPauses();
    const wait: PartitionWait = { dependency: 'dlq', fault: 'topic-missing' };
    const old = pauses.hold(consumer, 'orders', 0, wait);
    const newer = pauses.hold(consumer, 'orders', 0, wait);
    old.release();
    assert.ok(pauses.isHeld('orders', 0));
    newer.release();
    assert.deepEqual(consumer.calls, ['pause orders/0', 'pause orders/0', 'resume orders/0']);
  });
});

describe('callDependency: a call in flight too long reports its partition waiting', () => {
  it(`reports "slow" once the call has taken ${SLOW_CALL_MS} ms, and nothing for a quick one`, async function () {
    this.timeout(10_000);
    const waits: PartitionWait[] = [];
    const controls = {
      heartbeat: async () => undefined,
      ownsPartition: () => true,
      onWait: (w: PartitionWait) => void waits.push(w),
    };
    await callDependency('temporal', async () => 'quick', controls);
    assert.deepEqual(waits, []);
    await callDependency(
      'temporal',
      () => new Promise((r) => setTimeout(r, SLOW_CALL_MS + 400)),
      controls,
    );
    assert.deepEqual(waits, [{ dependency: 'temporal', fault: 'slow' }]);
  });
});
