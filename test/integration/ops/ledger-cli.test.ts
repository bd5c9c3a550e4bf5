import { strict as assert } from 'node:assert';
import type pg from 'pg';
import { createLedgerStore, type LedgerRow } from '../../../src/db/ledger-store';
import { migrate } from '../../../src/db/migrate';
import { createPool } from '../../../src/db/pool';
import { runOps } from '../../support/ops-cli';
import { testConfig, uniqueName } from '../../support/services';

function row(identity: string, firstSeenAt?: Date): LedgerRow {
  return {
    identity,
    eventType: 'OrderPlaced',
    eventId: uniqueName('evt'),
    aggregateId: identity,
    fingerprint: 'f',
    workflowId: `OrderPlaced:${identity}`,
    sourceTopic: 'orders',
    sourcePartition: 0,
    sourceOffset: '0',
    firstSeenAt,
  };
}

describe('ops CLI: ledger reap (real Postgres)', () => {
  const schema = uniqueName('ledger');
  let pool: pg.Pool;

  before(async () => {
    pool = createPool(testConfig().database, { schema });
    await migrate(pool, { schema });
    const store = createLedgerStore(pool, { schema });
    const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000);
    await store.recordStarted(row('old-1', daysAgo(40)));
    await store.recordStarted(row('old-2', daysAgo(10)));
    await store.recordStarted(row('fresh'));
  });
  after(async () => {
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  const identities = async () =>
    (
      await pool.query<{ identity: string }>(
        `SELECT identity FROM "${schema}".processed_events ORDER BY identity`,
      )
    ).rows.map((r) => r.identity);

  it('reaps by LEDGER_RETENTION_DAYS by default, then by --older-than-days', async () => {
    const env = { DATABASE_SCHEMA: schema, LEDGER_RETENTION_DAYS: '30' };
    const first = await runOps(['ledger', 'reap', '--json'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.json, { olderThanDays: 30, schema, deleted: 1 });
    assert.deepEqual(await identities(), ['fresh', 'old-2']);

    // Not below the DLQ retention (default 30 days): refused, nothing deleted.
    const early = await runOps(['ledger', 'reap', '--older-than-days', '5', '--json'], env);
    assert.equal(early.code, 2, early.stderr);
    assert.match(early.json.message, /shorter than BRIDGE_DLQ_RETENTION_DAYS \(30\)/);
    assert.deepEqual(await identities(), ['fresh', 'old-2']);
    const byDefault = await runOps(['ledger', 'reap', '--json'], {
      ...env,
      LEDGER_RETENTION_DAYS: '5',
    });
    assert.equal(byDefault.code, 78, byDefault.stderr);
    assert.match(byDefault.stderr, /LEDGER_RETENTION_DAYS/);
    assert.deepEqual(await identities(), ['fresh', 'old-2']);

    const second = await runOps(['ledger', 'reap', '--older-than-days', '5'], {
      ...env,
      BRIDGE_DLQ_RETENTION_DAYS: '5',
    });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /deleted:\s+1/);
    assert.deepEqual(await identities(), ['fresh']);
  });

  it('reaps the schema --schema names instead of DATABASE_SCHEMA', async () => {
    const store = createLedgerStore(pool, { schema });
    await store.recordStarted(row('old-3', new Date(Date.now() - 50 * 86_400_000)));
    const run = await runOps(['ledger', 'reap', '--schema', schema, '--json'], {
      DATABASE_SCHEMA: uniqueName('elsewhere'),
      LEDGER_RETENTION_DAYS: '30',
    });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.json, { olderThanDays: 30, schema, deleted: 1 });
    assert.deepEqual(await identities(), ['fresh']);
  });

  it('refuses a window of zero days (it would empty the dedup ledger): exit 2', async () => {
    const run = await runOps(['ledger', 'reap', '--older-than-days', '0', '--json'], {
      DATABASE_SCHEMA: schema,
    });
    assert.equal(run.code, 2);
    assert.equal(run.json.error, 'UsageError');
    assert.deepEqual(await identities(), ['fresh']);
  });
});
