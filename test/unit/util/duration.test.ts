import { strict as assert } from 'node:assert';
import { parseDuration } from '../../../src/chaos/args';
import { parseDurationMs } from '../../../src/util/duration';

describe('durations on command lines', () => {
  it('reads ms, s, m, h and d, with decimals', () => {
    assert.equal(parseDurationMs('500ms'), 500);
    assert.equal(parseDurationMs(' 90s '), 90_000);
    assert.equal(parseDurationMs('1.5m'), 90_000);
    assert.equal(parseDurationMs('2h'), 7_200_000);
    assert.equal(parseDurationMs('3d'), 259_200_000);
  });

  it('refuses a bare number, a negative one and unknown units', () => {
    for (const bad of ['10', '-5s', '5 minutes', '5w', '', 's'])
      assert.equal(parseDurationMs(bad), undefined, bad);
  });

  it("names the option in each command line's own usage error", () => {
    assert.throws(() => parseDuration('20'), /--duration: expected e\.g\. 90s or 2m, got "20"/);
  });
});
