import { strict as assert } from 'node:assert';
import type pg from 'pg';
import { migrate } from '../../../src/db/migrate';
import { createPool } from '../../../src/db/pool';
import {
  createLedgerStore,
  LedgerStore,
  LedgerStoreError,
  type LedgerRow,
} from '../../../src/db/ledger-store';
import { testConfig, uniqueName } from '../../support/services';

function row(overrides: Partial<LedgerRow> = {}): LedgerRow {
  const aggregateId = overrides.aggregateId ?? 'order-1';
  const version = 'aggregateVersion' in overrides ? overrides.aggregateVersion : 1;
  return {
    identity: version === undefined ? `evt-${aggregateId}` : `${aggregateId}@${version}`,
    eventType: 'OrderPlaced',
    eventId: `evt-${aggregateId}-${version}`,
    aggregateId,
    aggregateVersion: version,
    fingerprint: 'f'.repeat(64),
    workflowId: `OrderPlaced:${aggregateId}@${version}`,
    runId: 'run-1',
    sourceTopic: 'orders',
    sourcePartition: 0,
    sourceOffset: '10',
    ...overrides,
  };
}

describe('ledger store (real Postgres)', () => {
  const config = testConfig();
  let pool: pg.Pool;
  let store: LedgerStore;
  let schema: string;

  before(async () => {
    pool = createPool({ ...config.database, poolMax: 20 });
  });
  after(async () => {
    await pool.end();
  });
  beforeEach(async () => {
    schema = uniqueName('ledger');
    await migrate(pool, { schema });
    store = createLedgerStore(pool, { schema });
  });
  afterEach(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });

  it('looks up a whole batch of identities in one query', async () => {
    await store.recordStarted(row({ aggregateId: 'a', runId: 'run-a' }));
    await store.recordStarted(row({ aggregateId: 'b', runId: null, fingerprint: 'x' }));
    const known = await store.findKnown(['a@1', 'b@1', 'c@1', 'a@1']);
    assert.deepEqual([...known.keys()].sort(), ['a@1', 'b@1']);
    assert.deepEqual(known.get('a@1'), {
      eventType: 'OrderPlaced',
      fingerprint: 'f'.repeat(64),
      workflowId: 'OrderPlaced:a@1',
      runId: 'run-a',
    });
    assert.equal(known.get('b@1')?.runId, null);
    assert.equal(known.get('b@1')?.fingerprint, 'x');
    assert.equal((await store.findKnown([])).size, 0);
  });

  it('inserts an identity once, also under concurrency', async () => {
    const attempts = Array.from({ length: 20 }, (_, i) =>
      store.recordStarted(row({ eventId: `evt-${i}`, runId: `run-${i}` })),
    );
    const results = await Promise.all(attempts);
    assert.equal(results.filter(Boolean).length, 1, 'exactly one insert wins');
    const { rows } = await pool.query(`SELECT * FROM "${schema}".processed_events`);
    assert.equal(rows.length, 1);
    assert.equal(await store.recordStarted(row()), false, 'a later repeat is a duplicate');
  });

  it('records a batch in one statement: every column, duplicates skipped inside it and against the table', async () => {
    await store.recordStarted(row({ aggregateId: 'seen' }));
    // Text the array literal must escape: quotes, backslashes, braces, commas, NULL spelled out.
    const awkward = 'a "quoted", {braced} \\ back\\slash NULL';
    const rows = [
      row({ aggregateId: 'b1', runId: null, aggregateVersion: undefined, eventId: awkward }),
      row({ aggregateId: 'b2', aggregateVersion: 1732240000000, sourceOffset: '9007199254740993' }),
      row({ aggregateId: 'seen' }),
      row({ aggregateId: 'b2', aggregateVersion: 1732240000000, runId: 'run-again' }),
      row({ aggregateId: 'b3', sourcePartition: 7, firstSeenAt: new Date('2026-01-02T03:04:05Z') }),
    ];
    assert.equal(await store.recordAllStarted(rows), 3, 'b1, b2 and b3; not seen, not b2 twice');
    assert.equal(await store.recordAllStarted([]), 0);
    const { rows: stored } = await pool.query(
      `SELECT identity, event_id, aggregate_version::text AS v, run_id, source_partition,
              source_offset::text AS o, first_seen_at
         FROM "${schema}".processed_events ORDER BY identity`,
    );
    const by = new Map(stored.map((r) => [r.identity as string, r]));
    assert.deepEqual([...by.keys()], ['b2@1732240000000', 'b3@1', 'evt-b1', 'seen@1']);
    assert.equal(by.get('evt-b1').event_id, awkward);
    assert.equal(by.get('evt-b1').v, null);
    assert.equal(by.get('evt-b1').run_id, null);
    assert.equal(by.get('b2@1732240000000').v, '1732240000000');
    assert.equal(by.get('b2@1732240000000').o, '9007199254740993');
    assert.equal(by.get('b2@1732240000000').run_id, 'run-1', 'the first of two in one batch');
    assert.equal(by.get('b3@1').source_partition, 7);
    assert.equal((by.get('b3@1').first_seen_at as Date).toISOString(), '2026-01-02T03:04:05.000Z');
    assert.ok(Date.now() - (by.get('evt-b1').first_seen_at as Date).getTime() < 60_000);
  });

  it('refuses a whole batch when one row breaks a constraint: nothing of it is written', async () => {
    await assert.rejects(
      store.recordAllStarted([
        row({ aggregateId: 'ok' }),
        row({ aggregateVersion: 0, identity: 'z@0' }),
      ]),
      (err: unknown) => err instanceof LedgerStoreError && err.operation === 'recordAllStarted',
    );
    assert.equal((await store.findKnown(['ok@1'])).size, 0);
  });

  it('stores every column', async () => {
    await store.recordStarted(
      row({
        aggregateVersion: 1732240000000,
        sourcePartition: 5,
        sourceOffset: '9007199254740993',
      }),
    );
    const { rows } = await pool.query(
      `SELECT aggregate_version::text AS v, source_partition, source_offset::text AS o, first_seen_at
         FROM "${schema}".processed_events`,
    );
    assert.equal(rows[0].v, '1732240000000');
    assert.equal(rows[0].source_partition, 5);
    assert.equal(rows[0].o, '9007199254740993');
    assert.ok(Date.now() - (rows[0].first_seen_at as Date).getTime() < 60_000);
  });

  it('reports the highest version per aggregate, over all its event types, for a batch', async () => {
    for (const v of [1, 3, 2])
      await store.recordStarted(row({ aggregateId: 'a', aggregateVersion: v }));
    await store.recordStarted(
      row({ aggregateId: 'a', aggregateVersion: 9, eventType: 'OrderCancelled', identity: 'a@9' }),
    );
    await store.recordStarted(row({ aggregateId: 'b', aggregateVersion: 1732240000000 }));
    await store.recordStarted(row({ aggregateId: 'c', aggregateVersion: undefined }));
    const highest = await store.highestVersions(['a', 'b', 'c', 'd', 'a']);
    assert.equal(highest.get('a'), 9, 'an OrderCancelled v9 counts for the aggregate');
    assert.equal(highest.get('b'), 1732240000000);
    assert.equal(highest.has('c'), false, 'unversioned rows do not count');
    assert.equal(highest.has('d'), false);
    assert.equal(highest.size, 2);
    assert.equal((await store.highestVersions([])).size, 0);
  });

  it('reaps rows older than the window and keeps the rest', async () => {
    const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000);
    await store.recordStarted(row({ aggregateId: 'old1', firstSeenAt: daysAgo(45) }));
    await store.recordStarted(row({ aggregateId: 'old2', firstSeenAt: daysAgo(31) }));
    await store.recordStarted(row({ aggregateId: 'recent', firstSeenAt: daysAgo(29) }));
    await store.recordStarted(row({ aggregateId: 'now' }));
    assert.equal(await store.reapOlderThan(30), 2);
    const known = await store.findKnown(['old1@1', 'old2@1', 'recent@1', 'now@1']);
    assert.deepEqual([...known.keys()].sort(), ['now@1', 'recent@1']);
    assert.equal(await store.reapOlderThan(30), 0);
  });

  it('reaps in batches until nothing old is left', async () => {
    const small = createLedgerStore(pool, { schema, reapBatchSize: 3 });
    const old = new Date(Date.now() - 40 * 86_400_000);
    for (let i = 0; i < 8; i++)
      await store.recordStarted(row({ aggregateId: `o${i}`, firstSeenAt: old }));
    assert.equal(await small.reapOlderThan(30), 8);
  });

  it('reaps the rows of the given workflow IDs only, in batches', async () => {
    const small = createLedgerStore(pool, { schema, reapBatchSize: 2 });
    for (const id of ['a', 'b', 'c', 'in-flight'])
      await store.recordStarted(row({ aggregateId: id }));
    const ids = ['a', 'b', 'c', 'never-started'].map((id) => `OrderPlaced:${id}@1`);
    assert.equal(await small.reapWorkflows(ids), 3);
    const known = await store.findKnown(['a@1', 'b@1', 'c@1', 'in-flight@1']);
    assert.deepEqual([...known.keys()], ['in-flight@1']);
    assert.equal(await store.reapWorkflows([]), 0);
  });

  it('keeps each schema separate and names the schema in errors', async () => {
    await store.recordStarted(row());
    const other = uniqueName('ledger_other');
    await migrate(pool, { schema: other });
    try {
      assert.equal(
        (await createLedgerStore(pool, { schema: other }).findKnown(['order-1@1'])).size,
        0,
      );
    } finally {
      await pool.query(`DROP SCHEMA "${other}" CASCADE`);
    }
    const missing = createLedgerStore(pool, { schema: 'no_such_schema_here' });
    await assert.rejects(missing.findKnown(['x']), (err: unknown) => {
      assert.ok(err instanceof LedgerStoreError);
      assert.equal(err.operation, 'findKnown');
      assert.match(err.message, /no_such_schema_here/);
      return true;
    });
    assert.throws(() => createLedgerStore(pool, { schema: 'bad"; DROP' }), /invalid schema name/);
  });

  it('answers the lookups of the owner search, reconcile and fuzz', async () => {
    const early = new Date(Date.now() - 60_000);
    await store.recordStarted(
      row({ aggregateId: 'ord-2', aggregateVersion: 2, sourceOffset: '12' }),
    );
    await store.recordStarted(
      row({ aggregateId: 'ord-2', firstSeenAt: early, sourcePartition: 1, sourceOffset: '11' }),
    );
    await store.recordStarted(
      row({ aggregateId: 'ord-2', aggregateVersion: 3, eventType: 'OrderCancelled' }),
    );
    await store.recordStarted(row({ aggregateId: 'other-1', sourceTopic: 'elsewhere' }));
    assert.equal(await store.findFirstWorkflow('ord-2', 'OrderPlaced'), 'OrderPlaced:ord-2@1');
    assert.equal(await store.findFirstWorkflow('ord-2', 'OrderCancelled'), 'OrderPlaced:ord-2@3');
    assert.equal(await store.findFirstWorkflow('ord-9', 'OrderPlaced'), undefined);
    const listed = await store.listByAggregatePrefix('ord-');
    assert.deepEqual(listed.map((e) => e.identity).sort(), ['ord-2@1', 'ord-2@2', 'ord-2@3']);
    assert.deepEqual(
      listed.find((e) => e.identity === 'ord-2@3'),
      {
        identity: 'ord-2@3',
        eventType: 'OrderCancelled',
        aggregateId: 'ord-2',
        workflowId: 'OrderPlaced:ord-2@3',
      },
    );
    assert.equal((await store.listByAggregatePrefix('')).length, 4);
    const coordinates = await store.listCoordinates('orders');
    assert.deepEqual(coordinates.map((c) => `${c.partition}/${c.offset}`).sort(), [
      '0/10',
      '0/12',
      '1/11',
    ]);
  });

  it('defaults to the schema on the search_path of a pool createPool made', async () => {
    const own = createPool(config.database, { schema });
    try {
      await store.recordStarted(row({ aggregateId: 'own-1' }));
      const byPool = createLedgerStore(own);
      assert.equal(byPool.schema, schema);
      assert.equal((await byPool.findKnown(['own-1@1'])).size, 1);
    } finally {
      await own.end();
    }
  });

  it('rejects a non-positive version at the database too', async () => {
    await assert.rejects(
      store.recordStarted(row({ aggregateVersion: 0, identity: 'z@0' })),
      LedgerStoreError,
    );
  });
});
