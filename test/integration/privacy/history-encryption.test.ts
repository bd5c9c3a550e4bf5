import { strict as assert } from 'node:assert';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { Connection } from '@temporalio/client';
import pg from 'pg';
import type { Config } from '../../../src/config';
import { stackPaths } from '../../../harness/stack/paths';
import { readTopology } from '../../../harness/stack/topology';
import { TEMPORAL_DB } from '../../../harness/stack/temporal-server-db';
import { createClient } from '../../../src/temporal/connection';
import { generateKeyLine, parseKeyRing } from '../../../src/config/key-ring';
import type { OrderResult } from '../../../src/domains/orders/workflows/order-definitions';
import { OrderPipeline } from '../domains/orders/order-pipeline';
import { uniqueName } from '../../support/services';

/** Whether `needle` occurs anywhere in `file`, read in chunks (the shared DB is large). */
function fileContains(file: string, needle: Buffer): boolean {
  if (!existsSync(file)) return false;
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.alloc(4 << 20);
    let carry = Buffer.alloc(0);
    let position = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, position);
      if (n === 0) return false;
      position += n;
      const window = Buffer.concat([carry, chunk.subarray(0, n)]);
      if (window.includes(needle)) return true;
      carry = window.subarray(Math.max(0, window.length - needle.length + 1));
    }
  } finally {
    closeSync(fd);
  }
}

/** The dev server's SQLite file and its WAL (where the newest pages live until a checkpoint). */
function temporalDbFiles(): string[] {
  const db = stackPaths().temporalDb;
  return [db, `${db}-wal`].filter((f) => existsSync(f) && statSync(f).size > 0);
}

/** For each needle, the dev server's files (SQLite and WAL) that hold it. */
function devServerFilesContaining(needles: string[]): string[][] {
  const files = temporalDbFiles();
  assert.ok(files.length > 0, `no Temporal SQLite file under ${stackPaths().root}`);
  return needles.map((n) => files.filter((f) => fileContains(f, Buffer.from(n))));
}

/**
 * For each needle, the tables of the Temporal server's databases (persistence and
 * visibility) with a row holding it: in a text or JSON column as it is, in a bytea column
 * (history blobs, mutable state) as the hex that a row's text form shows.
 */
async function serverDatabasesContaining(needles: string[], config: Config): Promise<string[][]> {
  const found = needles.map((): string[] => []);
  for (const database of [TEMPORAL_DB.persistence, TEMPORAL_DB.visibility]) {
    const client = new pg.Client({
      host: '127.0.0.1',
      port: Number(new URL(config.database.url).port),
      user: 'postgres',
      database,
    });
    await client.connect();
    try {
      const { rows: tables } = await client.query<{ name: string }>(
        "SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public'",
      );
      assert.ok(tables.length > 0, `no tables in ${database}`);
      for (const { name } of tables) {
        for (const [i, needle] of needles.entries()) {
          const hex = Buffer.from(needle).toString('hex');
          const { rows } = await client.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM public.${name} r
              WHERE strpos(r::text, $1) > 0 OR strpos(r::text, $2) > 0`,
            [needle, hex],
          );
          if (rows[0]!.n > 0) found[i]!.push(`${database}.${name}`);
        }
      }
    } finally {
      await client.end();
    }
  }
  return found;
}

describe('history encryption (issue 17)', function () {
  this.timeout(180_000);
  let p: OrderPipeline;
  const email = `${uniqueName('atrest')}@example.com`;
  let workflowId: string;

  before(async () => {
    p = await new OrderPipeline().setUp();
    const sku = await p.seedStock(10);
    const orderId = uniqueName('ord-enc');
    await p.place([{ data: p.order(orderId, sku, { email }) }]);
    const [run] = await p.runsOf(orderId, 1);
    assert.equal(run!.result.outcome, 'completed', JSON.stringify(run!.result));
    workflowId = run!.workflowId;
  });
  after(async () => {
    await p?.tearDown();
  });

  it("Temporal's persistence stores no customer email in plaintext (the dev server's SQLite and WAL, or the server's PostgreSQL)", async () => {
    const where =
      readTopology().temporal === 'server'
        ? await serverDatabasesContaining([workflowId, email], p.h.config)
        : devServerFilesContaining([workflowId, email]);
    // The workflow ID is plaintext by design: finding it proves the search sees this run.
    assert.ok(where[0]!.length > 0, `workflow ${workflowId} not found in Temporal's persistence`);
    assert.deepEqual(where[1], [], `${email} in plaintext in Temporal's persistence`);
  });

  it('after a key rotation (new key first, old kept) the old order is still read', async () => {
    const config = p.h.config;
    const oldLine = configuredKeyLine(config);
    const rotated: Config = {
      ...config,
      encryption: {
        ...config.encryption,
        ring: parseKeyRing(`${generateKeyLine('rot')},${oldLine}`, 'T'),
      },
    };
    const onlyNew: Config = {
      ...config,
      encryption: { ...config.encryption, ring: parseKeyRing(generateKeyLine('rot2'), 'T') },
    };
    const connection = await Connection.connect({ address: config.temporal.address });
    try {
      const result = (await createClient(connection, rotated)
        .workflow.getHandle(workflowId)
        .result()) as OrderResult;
      assert.equal(result.outcome, 'completed');
      const history = await createClient(connection, rotated)
        .workflow.getHandle(workflowId)
        .fetchHistory();
      assert.ok(history.events && history.events.length > 0);
      await assert.rejects(
        createClient(connection, onlyNew).workflow.getHandle(workflowId).result(),
        /not in the key ring/,
      );
    } finally {
      await connection.close();
    }
  });
});

/** The configured ring's current key as a key-ring line (tests only: key material). */
function configuredKeyLine(config: Config): string {
  const current = config.encryption.ring?.current;
  assert.ok(current, 'the test stack provides an encryption key');
  return `${current.id}:${current.key.toString('base64')}`;
}
