import { strict as assert } from 'node:assert';
import { forEachLimited, runLimited } from '../../../src/util/run-limited';

describe('forEachLimited', () => {
  it('visits every item once, never more than the limit at a time', async () => {
    const items = Array.from({ length: 25 }, (_, i) => i);
    const seen: number[] = [];
    let inFlight = 0;
    let peak = 0;
    await forEachLimited(items, 4, async (item, index) => {
      assert.equal(item, index);
      inFlight++;
      peak = Math.max(peak, inFlight);
      await Promise.resolve();
      await Promise.resolve();
      seen.push(item);
      inFlight--;
    });
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      items,
    );
    assert.equal(peak, 4);
  });

  it('handles an empty list', async () => {
    let calls = 0;
    await forEachLimited([], 8, async () => {
      calls++;
      await Promise.resolve();
    });
    assert.equal(calls, 0);
  });
});

describe('runLimited', () => {
  it('never runs more than the limit at once and runs every task', async () => {
    let inFlight = 0;
    let peak = 0;
    const done: number[] = [];
    const tasks = Array.from({ length: 10 }, (_, i) => async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      done.push(i);
    });
    await runLimited(tasks, 3);
    assert.equal(peak, 3);
    assert.equal(done.length, 10);
  });

  it('rejects with the first error only after every task settled', async () => {
    const settled: number[] = [];
    const tasks = [0, 1, 2, 3].map((i) => async () => {
      await new Promise((r) => setTimeout(r, i * 3));
      settled.push(i);
      if (i === 1) throw new Error('first');
      if (i === 2) throw new Error('second');
    });
    await assert.rejects(runLimited(tasks, 2), /first/);
    assert.deepEqual(settled.sort(), [0, 1, 2, 3]);
  });

  it('resolves at once with no tasks, whatever the limit', async () => {
    for (const limit of [4, 1, 0]) {
      // Settled before a macrotask can run: no lane waits on anything.
      const outcome = await Promise.race([
        runLimited([], limit).then(() => 'resolved'),
        new Promise((r) => setImmediate(() => r('still pending'))),
      ]);
      assert.equal(outcome, 'resolved', `limit ${limit}`);
    }
  });

  it('runs one at a time when the limit is below 1', async () => {
    const done: number[] = [];
    await runLimited(
      [0, 1].map((i) => async () => void done.push(i)),
      0,
    );
    assert.deepEqual(done, [0, 1]);
  });
});
