import assert from 'node:assert/strict';
import { median, roundsOf } from '../../../../harness/bench/rounds';

describe('bridge bench rounds', () => {
  it('compares each bridge run with the mean of the raw runs around it', () => {
    const rounds = roundsOf([400, 300, 350], [315, 290]);
    assert.deepEqual(rounds, [
      { rawBefore: 400, bridge: 315, rawAfter: 300, ratio: 0.9 },
      { rawBefore: 300, bridge: 290, rawAfter: 350, ratio: 0.89 },
    ]);
  });

  it('refuses rates that are not interleaved', () => {
    assert.throws(() => roundsOf([400, 300], [315, 290]), /one raw run more/);
  });

  it('takes the middle value, or the mean of the middle two', () => {
    assert.equal(median([0.95, 0.7, 0.88]), 0.88);
    assert.equal(median([70, 90, 80, 100]), 85);
    assert.ok(Number.isNaN(median([])));
  });
});
