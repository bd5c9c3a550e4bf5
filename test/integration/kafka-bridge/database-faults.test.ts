import type pg from 'pg';
import { qualifyTable, quoteSchema } from '../../../src/config/schema-name';
import { BridgeHarness } from '../../support/bridge-harness';
import { LedgerRole } from '../../support/pg-roles';
import {
  orders,
  WatchedBridge,
  assertStalled,
  assertEachStartedOnce,
} from './environment-faults-helpers';

describe('bridge: the database’s faults stall and alert; every order starts once after the fix', () => {
  let h: BridgeHarness;
  let w: WatchedBridge;
  let role: LedgerRole | undefined;
  let cleanup: Array<() => Promise<unknown>> = [];

  afterEach(async () => {
    await w.bridge?.stop().catch(() => undefined);
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    cleanup = [];
    await role?.drop().catch(() => undefined);
    role = undefined;
    await h.tearDown();
  });

  /** Orders A are handled before the fault, B during it, C after the fix. */
  async function beforeFault(pool?: pg.Pool): Promise<{
    committed: Map<number, number>;
    ledgerRows: number;
  }> {
    w = await new WatchedBridge(h).start({ pool });
    await h.produce(orders(6));
    await h.waitUntilAllCommitted(60_000);
    return { committed: await h.committedOffsets(), ledgerRows: await h.ledgerCount() };
  }

  it('a revoked INSERT grant (42501): stalls, names the GRANT, and goes on once granted back', async () => {
    h = await new BridgeHarness().setUp(3);
    role = await new LedgerRole(h.config.database, h.schema).create();
    const before = await beforeFault(role.pool);
    await role.operator('REVOKE INSERT ON %table FROM %role');
    await h.produce(orders(6));
    await assertStalled(h, w, {
      dependency: 'postgres',
      fault: 'permission',
      fix: new RegExp(
        `^Postgres refused INSERT on ${h.schema}\\.processed_events: .*permission denied.*\\(42501\\)\\. Grant the bridge's role ${role.name}: .*GRANT SELECT, INSERT ON ${h.schema}\\.processed_events`,
      ),
      ...before,
    });
    await role.operator('GRANT INSERT ON %table TO %role');
    await h.produce(orders(6));
    await assertEachStartedOnce(h, w, 18);
  });

  it('a role that may no longer log in (28000): stalls as authentication, goes on once it may', async () => {
    h = await new BridgeHarness().setUp(3);
    role = await new LedgerRole(h.config.database, h.schema).create();
    const before = await beforeFault(role.pool);
    await role.operator('ALTER ROLE %role NOLOGIN');
    await role.endSessions();
    await h.produce(orders(6));
    await assertStalled(h, w, {
      dependency: 'postgres',
      fault: 'authentication',
      fix: /\(28000\)\. Postgres refused the bridge's login/,
      ...before,
    });
    await role.operator('ALTER ROLE %role LOGIN');
    await h.produce(orders(6));
    await assertEachStartedOnce(h, w, 18);
  });

  it('the ledger table renamed away (42P01): stalls, names the migrations, goes on once it is back', async () => {
    h = await new BridgeHarness().setUp(3);
    const before = await beforeFault();
    const table = qualifyTable(h.schema, 'processed_events');
    await h.pool.query(`ALTER TABLE ${table} RENAME TO processed_events_away`);
    cleanup.push(() =>
      h.pool.query(
        `ALTER TABLE ${qualifyTable(h.schema, 'processed_events_away')} RENAME TO processed_events`,
      ),
    );
    await h.produce(orders(6));
    await assertStalled(h, w, {
      dependency: 'postgres',
      fault: 'schema-missing',
      fix: new RegExp(`\\(42P01\\)\\. .*run the migrations against DATABASE_SCHEMA=${h.schema}`),
      ...before,
      countRows: async () =>
        Number(
          (
            await h.pool.query<{ n: string }>(
              `SELECT count(*) AS n FROM ${qualifyTable(h.schema, 'processed_events_away')}`,
            )
          ).rows[0]!.n,
        ),
    });
    await cleanup.pop()!();
    await h.produce(orders(6));
    await assertEachStartedOnce(h, w, 18);
  });

  it('a read-only database for the bridge’s new sessions (25006): stalls, goes on once writable, on fresh connections', async () => {
    h = await new BridgeHarness().setUp(3);
    role = await new LedgerRole(h.config.database, h.schema).create();
    const before = await beforeFault(role.pool);
    // As after a failover onto a standby: the sessions end, the new ones refuse writes. Set
    // on the test's own role rather than ALTER DATABASE: same effect on the bridge's new
    // sessions, nothing else on the shared database affected.
    await role.operator('ALTER ROLE %role SET default_transaction_read_only = on');
    await role.endSessions();
    await h.produce(orders(6));
    await assertStalled(h, w, {
      dependency: 'postgres',
      fault: 'read-only',
      fix: /\(25006\)\. Postgres refuses writes/,
      ...before,
    });
    // No session is ended this time: the bridge must drop its read-only connections itself.
    await role.operator('ALTER ROLE %role RESET default_transaction_read_only');
    await h.produce(orders(6));
    await assertEachStartedOnce(h, w, 18);
  });

  it('a full disk (53100 from a trigger): stalls, names the disk, goes on once the fault is gone', async () => {
    h = await new BridgeHarness().setUp(3);
    const before = await beforeFault();
    const schema = quoteSchema(h.schema);
    // The real Postgres raises SQLSTATE 53100 on the ledger INSERT, with the message it uses
    // when it cannot extend a file, through the real driver; dropping the trigger plays the
    // operator freeing space. This proves the bridge's handling of the error Postgres sends
    // for a full disk; it does not fill a disk: on a real one reads may still work or not,
    // and a full WAL volume makes Postgres stop, which the bridge sees as unavailable.

    await h.pool.query(`
      CREATE FUNCTION ${schema}.fail_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'could not extend file "base/16384/16385": No space left on device'
          USING ERRCODE = 'disk_full', HINT = 'Check free disk space.';
      END $$`);
    await h.pool.query(`
      CREATE TRIGGER disk_full BEFORE INSERT ON ${schema}.processed_events
      FOR EACH ROW EXECUTE FUNCTION ${schema}.fail_disk_full()`);
    const dropTrigger = () =>
      h.pool.query(`DROP TRIGGER IF EXISTS disk_full ON ${schema}.processed_events`);
    cleanup.push(dropTrigger);
    await h.produce(orders(6));
    await assertStalled(h, w, {
      dependency: 'postgres',
      fault: 'disk-full',
      fix: /No space left on device.*\(53100\)\. The database server's disk is full/,
      ...before,
    });
    await dropTrigger();
    await h.produce(orders(6));
    await assertEachStartedOnce(h, w, 18);
  });
});
