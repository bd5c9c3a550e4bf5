import { strict as assert } from 'node:assert';
import { createKafka } from '../../../src/kafka/kafka-client';
import { ensureTopics } from '../../../src/kafka/topics';
import { createPool } from '../../../src/db/pool';
import { migrate } from '../../../src/db/migrate';
import { runOps } from '../../support/ops-cli';
import { testConfig, uniqueName } from '../../support/services';

describe('ops CLI: onceflow reconcile (real stack)', () => {
  it('runs the reconciliation: an empty topic and ledger are clean (exit 0)', async () => {
    const config = testConfig();
    const topic = uniqueName('recon_orders');
    const schema = uniqueName('recon');
    await ensureTopics(createKafka(config.kafka, 'test'), { topics: [topic], partitions: 1 });
    const pool = createPool(config.database, { schema });
    try {
      await migrate(pool, { schema });
    } finally {
      await pool.end();
    }
    const run = await runOps(
      ['reconcile', '--json', '--topic', topic, '--prefix', uniqueName('none')],
      { DATABASE_SCHEMA: schema },
    );
    assert.equal(run.code, 0, run.stderr);
    const report = run.json as { clean: boolean; discrepancies: unknown[] };
    assert.equal(report.clean, true);
    assert.deepEqual(report.discrepancies, []);
  });

  it('passes reconcile usage errors through as exit 2', async () => {
    const run = await runOps(['reconcile', '--stuck-after', 'soon']);
    assert.equal(run.code, 2, run.stderr);
  });
});
