import { strict as assert } from 'node:assert';
import { parsePositiveInt, UsageError } from '../../../src/util/usage-error';

describe('util: usage errors', () => {
  it('is one class with a stable name (the ops CLI prints it in --json errors)', () => {
    const err = new UsageError('--limit must be a positive integer, got 0');
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'UsageError');
  });

  it('reads a positive integer option or falls back when it is absent', () => {
    assert.equal(parsePositiveInt('25', '--limit', 100), 25);
    assert.equal(parsePositiveInt(undefined, '--limit', 100), 100);
  });

  it('refuses zero, negatives, fractions, words and unsafe integers, naming the option', () => {
    for (const bad of ['0', '-3', '1.5', 'ten', '9007199254740993'])
      assert.throws(
        () => parsePositiveInt(bad, '--orders', 1),
        (err: unknown) =>
          err instanceof UsageError &&
          err.message === `--orders must be a positive integer, got ${bad}`,
        bad,
      );
  });
});
