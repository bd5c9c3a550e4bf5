import { strict as assert } from 'node:assert';
import { ConfigError } from '../../../src/config';
import { parseReapArgs } from '../../../src/ops/ledger-commands';
import { UsageError } from '../../../src/util/usage-error';

const defaults = { days: 30, schema: 'public', dlqRetentionDays: 0.1 };

describe('ops: ledger reap arguments', () => {
  it('defaults to LEDGER_RETENTION_DAYS in DATABASE_SCHEMA', () => {
    assert.deepEqual(parseReapArgs([], defaults), { days: 30, schema: 'public' });
  });
  it('reads --older-than-days in both spellings, and --schema', () => {
    assert.equal(parseReapArgs(['--older-than-days', '7'], defaults).days, 7);
    assert.equal(parseReapArgs(['--older-than-days=0.5'], defaults).days, 0.5);
    assert.equal(parseReapArgs(['--schema', 'tenant_a'], defaults).schema, 'tenant_a');
  });
  it('refuses a window shorter than BRIDGE_DLQ_RETENTION_DAYS, naming where it came from (issue 23)', () => {
    const dlq30 = { ...defaults, dlqRetentionDays: 30 };
    assert.equal(parseReapArgs([], dlq30).days, 30, 'equal is enough');
    assert.equal(parseReapArgs(['--older-than-days', '45'], dlq30).days, 45);
    assert.throws(
      () => parseReapArgs(['--older-than-days', '7'], dlq30),
      (err: unknown) =>
        err instanceof UsageError &&
        /--older-than-days 7 is shorter than BRIDGE_DLQ_RETENTION_DAYS \(30\)/.test(err.message),
    );
    assert.throws(
      () => parseReapArgs([], { ...dlq30, days: 14 }),
      (err: unknown) =>
        err instanceof ConfigError && err.problems[0]!.setting === 'LEDGER_RETENTION_DAYS',
    );
  });

  it('refuses zero, negative and non-numeric windows, an empty schema and unknown flags', () => {
    for (const bad of ['0', '-1', 'abc', '']) {
      assert.throws(
        () => parseReapArgs([`--older-than-days=${bad}`], defaults),
        (err: unknown) => err instanceof UsageError && /positive number/.test(err.message),
      );
    }
    assert.throws(() => parseReapArgs(['--schema='], defaults), UsageError);
    assert.throws(() => parseReapArgs(['--days', '3'], defaults), UsageError);
  });
});
