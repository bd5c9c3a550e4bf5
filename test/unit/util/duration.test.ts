import { strict as assert } from 'node:assert';
import { parseDuration, parseDurationMs } from '../../../src/util/duration';
import { UsageError } from '../../../src/util/usage-error';

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

  it('names the option in the usage error of a command line', () => {
    assert.equal(parseDuration('10m', '--stuck-after'), 600_000);
    assert.throws(
      () => parseDuration('20', '--duration'),
      (err: unknown) =>
        err instanceof UsageError &&
        err.message === '--duration must look like 30s, 10m, 2h or 3d, got 20',
    );
  });
});
