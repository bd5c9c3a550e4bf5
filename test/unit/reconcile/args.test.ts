import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { parseReconcileArgs } from '../../../src/reconcile/args';
import { parseDuration } from '../../../src/util/duration';
import { UsageError } from '../../../src/util/usage-error';
import { formatReportTable } from '../../../src/reconcile/format';
import { countByClass } from '../../../src/reconcile/classify';

const ROOT = resolve(__dirname, '..', '..', '..');

describe('reconcile: command line', () => {
  it('has defaults: configured topics, no prefix, 10 minutes, table', () => {
    assert.deepEqual(parseReconcileArgs([]), {
      topics: [],
      prefix: '',
      stuckAfterMs: 600_000,
      json: false,
    });
  });

  it('reads every flag', () => {
    assert.deepEqual(
      parseReconcileArgs([
        '--topic',
        'a',
        '--topic',
        'b',
        '--prefix',
        'run1-order',
        '--stuck-after',
        '90s',
        '--json',
        '--schema',
        'ledger_x',
        '--providers-url',
        'http://127.0.0.1:4010/',
      ]),
      {
        topics: ['a', 'b'],
        prefix: 'run1-order',
        stuckAfterMs: 90_000,
        json: true,
        schema: 'ledger_x',
        providersUrl: 'http://127.0.0.1:4010',
      },
    );
  });

  it('parses durations and rejects malformed ones, unknown flags and quoted prefixes', () => {
    assert.equal(parseDuration('10m', '--stuck-after'), 600_000);
    assert.equal(parseDuration('2h', '--stuck-after'), 7_200_000);
    assert.equal(parseDuration('500ms', '--stuck-after'), 500);
    assert.throws(() => parseDuration('10', '--stuck-after'), UsageError);
    assert.throws(() => parseReconcileArgs(['--stuck-after', 'soon']), UsageError);
    assert.throws(() => parseReconcileArgs(['--nope']), UsageError);
    assert.throws(() => parseReconcileArgs(['--prefix', "x' OR 1=1"]), UsageError);
  });

  it('exits 2 with the usage on a bad flag, before touching config or services', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/reconcile/main.ts', '--nope'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    assert.equal(run.status, 2);
    assert.match(run.stderr, /usage: npm run reconcile/);
  });

  it('prints a table row per discrepancy and one line when clean', () => {
    const read = {
      messages: 3,
      validEvents: 2,
      identities: 1,
      poison: 1,
      ledgerRows: 1,
      workflows: 1,
      orders: 1,
      payouts: 0,
      carts: 0,
      reservations: 1,
      claims: 1,
      settledClaims: 1,
      dlqMessages: 1,
      eventsKnownSince: null,
    };
    const clean = formatReportTable(
      { clean: true, discrepancies: [], counts: countByClass([]), read },
      'test',
    );
    assert.match(clean, /clean: no discrepancies/);
    const discrepancies = [
      {
        class: 'refund-missing' as const,
        subject: 'o2',
        detail: 'cancelled but net charge is 2500',
      },
    ];
    const table = formatReportTable(
      { clean: false, discrepancies, counts: countByClass(discrepancies), read },
      'test',
    );
    assert.match(table, /refund-missing\s+o2\s+cancelled but net charge is 2500/);
    assert.match(table, /1 discrepancies/);
  });
});
