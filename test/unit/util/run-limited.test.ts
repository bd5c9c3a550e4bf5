import { strict as assert } from 'node:assert';
import { forEachConcurrently } from '../../../src/ops/concurrently';

describe('forEachConcurrently', () => {
  it('visits every item once, never more than the limit at a time', async () => {
    const items = Array.from({ length: 25 }, (_, i) => i);
    const seen: number[] = [];
    let inFlight = 0;
    let peak = 0;
    await forEachConcurrently(items, 4, async (item, index) => {
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
    await forEachConcurrently([], 8, async () => {
      calls++;
      await Promise.resolve();
    });
    assert.equal(calls, 0);
  });
});
