import { strict as assert } from 'node:assert';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { Connection } from '@temporalio/client';
import type { Config } from '../../../src/config';
import { stackPaths } from '../../../harness/stack/paths';
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

  it('the dev server stores no customer email in plaintext (SQLite file and WAL)', () => {
    const files = temporalDbFiles();
    assert.ok(files.length > 0, `no Temporal SQLite file under ${stackPaths().root}`);
    // The workflow ID is plaintext by design: finding it proves these files hold this run.
    assert.ok(
      files.some((f) => fileContains(f, Buffer.from(workflowId))),
      `workflow ${workflowId} not found in ${files.join(', ')}`,
    );
    for (const f of files) {
      assert.equal(fileContains(f, Buffer.from(email)), false, `${email} in plaintext in ${f}`);
    }
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
