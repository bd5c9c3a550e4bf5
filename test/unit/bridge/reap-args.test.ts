import { strict as assert } from 'node:assert';
import { DEFAULT_REAP_DAYS, parseReapArgs } from '../../../src/kafka-bridge/reap-cli';

describe('bridge: ledger:reap arguments', () => {
  it('defaults to 30 days in the public schema', () => {
    assert.equal(DEFAULT_REAP_DAYS, 30);
    assert.deepEqual(parseReapArgs([]), { days: 30, schema: 'public' });
  });
  it('reads --older-than-days in both spellings', () => {
    assert.equal(parseReapArgs(['--older-than-days', '7']).days, 7);
    assert.equal(parseReapArgs(['--older-than-days=0.5']).days, 0.5);
  });
  it('refuses zero, negative and non-numeric windows and unknown flags', () => {
    for (const bad of ['0', '-1', 'abc', '']) {
      assert.throws(() => parseReapArgs([`--older-than-days=${bad}`]), /positive number/);
    }
    assert.throws(() => parseReapArgs(['--days', '3']));
  });
});
