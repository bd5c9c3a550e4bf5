import { strict as assert } from 'node:assert';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { createLedgerStore } from '../../../src/db/ledger-store';
import {
  buildIdOf,
  loadBuild,
  removeBuilds,
  storeBuild,
} from '../../../src/db/workflow-build-store';
import { migrate } from '../../../src/db/migrate';
import { createPool } from '../../../src/db/pool';
import { readStock, setStock } from '../../../src/domains/orders/inventory/stock-store';
import { findBinDir } from '../../../harness/stack/postgres';
import { runCommand } from '../../../harness/stack/run-command';
import { testConfig, uniqueName } from '../../support/services';

const ROLES_SQL = resolve(__dirname, '..', '..', '..', 'docker', 'postgres', 'onceflow-roles.psql');

/** The SQLSTATE a promise rejects with. */
async function sqlstateOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
}

/**
 * docker-compose's least-privilege roles (docker/postgres/onceflow-roles.psql), applied by
 * psql to the real Postgres of the stack under names of this test's own: the owner migrates,
 * the app role (bridge, worker, providers, ops) reads and writes rows and nothing more, and
 * neither reaches Temporal's databases, nor Temporal's role onceflow's.
 */
describe("compose's database roles (issue 23, real Postgres)", function () {
  this.timeout(120_000);
  const base = new URL(testConfig().database.url);
  const tag = uniqueName('r').toLowerCase();
  const names = {
    temporal_role: `t_${tag}`,
    temporal_db: `td_${tag}`,
    temporal_visibility_db: `tv_${tag}`,
    owner_role: `o_${tag}`,
    app_role: `a_${tag}`,
    worker_role: `w_${tag}`,
    onceflow_db: `of_${tag}`,
  };
  const passwords = {
    temporal_password: 'tp',
    owner_password: 'op',
    app_password: 'ap',
    worker_password: 'wp',
  };
  const urlOf = (user: string, database: string) => {
    const url = new URL(base);
    url.username = user;
    url.password = '';
    url.pathname = `/${database}`;
    return url.toString();
  };
  const configFor = (user: string, database: string) => ({
    ...testConfig().database,
    url: urlOf(user, database),
  });
  const pools: pg.Pool[] = [];
  const poolAs = (user: string, database: string, schema = 'public') => {
    const pool = createPool(configFor(user, database), { schema });
    pools.push(pool);
    return pool;
  };

  async function applyRoles(): Promise<void> {
    const vars = Object.entries({ ...names, ...passwords }).flatMap(([k, v]) => [
      '-v',
      `${k}=${v}`,
    ]);
    // The stack's own client (Debian's postgresql ships it beside the server).
    const binDir = findBinDir();
    await runCommand(binDir ? join(binDir, 'psql') : 'psql', [
      '--no-psqlrc',
      '-q',
      '-h',
      base.hostname,
      '-p',
      base.port,
      '-U',
      'postgres',
      '-d',
      'postgres',
      ...vars,
      '-f',
      ROLES_SQL,
    ]);
  }

  before(async () => {
    await applyRoles();
    // Setup's part, as the owner: every migration, in both of onceflow's schemas.
    const owner = poolAs(names.owner_role, names.onceflow_db);
    assert.ok((await migrate(owner, { schema: 'public' })).length > 0);
    assert.ok(
      (await migrate(poolAs(names.owner_role, names.onceflow_db, 'sandbox'), { schema: 'sandbox' }))
        .length > 0,
    );
  });
  after(async () => {
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    const admin = new pg.Client({ connectionString: urlOf('postgres', 'postgres') });
    await admin.connect();
    try {
      for (const db of [names.onceflow_db, names.temporal_db, names.temporal_visibility_db])
        await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
      for (const role of [names.worker_role, names.app_role, names.owner_role, names.temporal_role])
        await admin.query(`DROP ROLE IF EXISTS "${role}"`);
    } finally {
      await admin.end();
    }
  });

  /**
   * The code every worker runs: the worker's role stores a build, the app role (the bridge's,
   * the providers', the ops CLI's) reads it only, and nobody, the owner included, changes or
   * removes one.
   */
  async function assertOnlyTheWorkerStoresBuilds(code: string): Promise<void> {
    const app = poolAs(names.app_role, names.onceflow_db);
    const worker = poolAs(names.worker_role, names.onceflow_db);
    const owner = poolAs(names.owner_role, names.onceflow_db);
    const buildId = buildIdOf(code);
    assert.equal(
      await sqlstateOf(storeBuild(app, buildIdOf(`${code} planted`), `${code} planted`)),
      '42501',
      'the app role stores a build',
    );
    assert.notEqual((await storeBuild(worker, buildId, code)).state, 'conflict');
    assert.equal((await loadBuild(app, buildId)).state, 'verified', 'the app role reads builds');
    const tamper = 'UPDATE workflow_builds SET code_gzip = $1 WHERE build_id = $2';
    for (const [who, pool] of [
      ['app', app],
      ['worker', worker],
      ['owner', owner],
    ] as const) {
      assert.equal(
        await sqlstateOf(pool.query(tamper, [Buffer.from('evil'), buildId])),
        '42501',
        `${who} UPDATE`,
      );
      assert.equal(
        await sqlstateOf(pool.query('DELETE FROM workflow_builds WHERE build_id = $1', [buildId])),
        '42501',
        `${who} DELETE`,
      );
    }
    assert.equal(await sqlstateOf(owner.query('TRUNCATE workflow_builds')), '42501');
    assert.equal((await loadBuild(app, buildId)).state, 'verified', 'the build is unchanged');
    // Saying so (what `builds prune` does) lets the owner remove a build, and no one else.
    for (const [who, pool] of [
      ['app', app],
      ['worker', worker],
    ] as const)
      assert.equal(await sqlstateOf(removeBuilds(pool, [buildId])), '42501', `${who} prune`);
    const other = `${code} // pruned`;
    assert.notEqual((await storeBuild(worker, buildIdOf(other), other)).state, 'conflict');
    assert.equal(await removeBuilds(owner, [buildIdOf(other)]), 1, 'the owner prunes');
    assert.equal((await loadBuild(app, buildIdOf(other))).state, 'missing');
    assert.equal((await loadBuild(app, buildId)).state, 'verified', 'the other build stays');
  }

  it('only the worker role stores builds; no role changes or removes one (a fresh install)', () =>
    assertOnlyTheWorkerStoresBuilds('module.exports = "first build";'));

  it('runs again on an installed database without error (idempotent)', async () => {
    await applyRoles();
    await assertOnlyTheWorkerStoresBuilds('module.exports = "second build";');
  });

  it('the app role starts up (an up-to-date migrate only reads) and works the stores', async () => {
    const app = poolAs(names.app_role, names.onceflow_db);
    assert.deepEqual(await migrate(app, { schema: 'public' }), []);
    assert.deepEqual(
      await migrate(poolAs(names.app_role, names.onceflow_db, 'sandbox'), { schema: 'sandbox' }),
      [],
    );
    const ledger = createLedgerStore(app, { schema: 'public' });
    await ledger.recordStarted({
      identity: 'v:o-1@1',
      eventType: 'OrderPlaced',
      eventId: 'e-1',
      aggregateId: 'o-1',
      fingerprint: 'f',
      workflowId: 'OrderPlaced:v:o-1@1',
      sourceTopic: 'orders',
      sourcePartition: 0,
      sourceOffset: '0',
      firstSeenAt: new Date(Date.now() - 40 * 86_400_000),
    });
    assert.equal(await ledger.reapOlderThan(30), 1, 'ops can reap (DELETE)');
    await setStock(app, 'sku-1', 5);
    assert.equal(await readStock(app, 'sku-1'), 5);
  });

  it('the app role has rows rights on every table of both schemas (builds: read), and nothing else', async () => {
    const app = poolAs(names.app_role, names.onceflow_db);
    const { rows } = await app.query<{ t: string; dml: boolean; extra: boolean }>(
      `SELECT format('%I.%I', schemaname, tablename) AS t,
              has_table_privilege(format('%I.%I', schemaname, tablename),
                CASE tablename WHEN 'workflow_builds' THEN 'SELECT' ELSE 'SELECT, INSERT, UPDATE, DELETE' END) AS dml,
              has_table_privilege(format('%I.%I', schemaname, tablename), 'TRUNCATE')
                OR has_table_privilege(format('%I.%I', schemaname, tablename), 'REFERENCES')
                OR has_table_privilege(format('%I.%I', schemaname, tablename), 'TRIGGER') AS extra
         FROM pg_tables WHERE schemaname IN ('public', 'sandbox')`,
    );
    assert.ok(rows.length >= 5, JSON.stringify(rows));
    for (const r of rows) {
      assert.equal(r.dml, true, `${r.t}: rows`);
      assert.equal(r.extra, false, `${r.t}: TRUNCATE, REFERENCES or TRIGGER`);
    }
  });

  it('the app role cannot change the schema: CREATE, ALTER, DROP, TRUNCATE are refused (42501)', async () => {
    const app = poolAs(names.app_role, names.onceflow_db);
    for (const sql of [
      'CREATE TABLE public.intruder (i int)',
      'CREATE TABLE sandbox.intruder (i int)',
      'CREATE SCHEMA intruder',
      'ALTER TABLE public.processed_events ADD COLUMN x int',
      'DROP TABLE public.processed_events',
      'TRUNCATE public.processed_events',
    ])
      assert.equal(await sqlstateOf(app.query(sql)), '42501', sql);
  });

  it("a table a later migration creates is the app role's to use at once (default privileges)", async () => {
    const owner = poolAs(names.owner_role, names.onceflow_db);
    await owner.query('CREATE TABLE public.later_table (id int PRIMARY KEY, n int)');
    const app = poolAs(names.app_role, names.onceflow_db);
    await app.query('INSERT INTO public.later_table VALUES (1, 1)');
    await app.query('UPDATE public.later_table SET n = 2');
    await app.query('DELETE FROM public.later_table');
  });

  it("neither onceflow's roles reach Temporal's databases, nor Temporal's role onceflow's", async () => {
    const tries = [
      [names.app_role, names.temporal_db],
      [names.app_role, names.temporal_visibility_db],
      [names.owner_role, names.temporal_db],
      [names.temporal_role, names.onceflow_db],
    ];
    for (const [user, database] of tries) {
      const client = new pg.Client({ connectionString: urlOf(user!, database!) });
      const code = await sqlstateOf(client.connect());
      await client.end().catch(() => undefined);
      assert.equal(code, '42501', `${user} → ${database}`);
    }
    const temporal = new pg.Client({
      connectionString: urlOf(names.temporal_role, names.temporal_db),
    });
    await temporal.connect();
    await temporal.query('CREATE TABLE t_ok (i int)'); // Temporal's own schema tool does this
    await temporal.end();
  });
});
