/**
 * ONCEFLOW_TEMPORAL=server: the Temporal server built from its Go module, on the stack's
 * PostgreSQL, with its own Web UI, in a stack of its own. Named *.topology-test.ts, not
 * *.test.ts: `npm test` runs every *.test.ts, and this builds the server (minutes, once) and
 * starts a second stack; `npm run test:production-topology` runs it.
 */
import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { Connection, type Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { chromium, type Page } from 'playwright-core';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { migrations } from '../../src/db/migrations';
import { installAptPackages } from '../../harness/stack/apt';
import { VERSIONS } from '../../harness/stack/paths';
import { isAlive } from '../../harness/stack/processes';
import { restartTemporal } from '../../harness/stack/restart';
import { readStackState, type RunningStack } from '../../harness/stack/stack';
import { SEARCH_ATTRIBUTES } from '../../harness/stack/temporal';
import { HISTORY_SHARDS } from '../../harness/stack/temporal-server';
import { TEMPORAL_DB } from '../../harness/stack/temporal-server-db';
import { createClient } from '../../src/temporal/connection';
import { waitFor } from '../../src/util/wait';
import { createWorker } from '../../src/worker/create-worker';
import { DOMAINS } from '../../src/domains';
import { orderFulfillment } from '../../src/domains/orders/workflows';
import { smokeCheck } from '../../src/workflows';
import { eventInputOf } from '../support/order-env';
import { uniqueName } from '../support/services';
import { workflowBundle } from '../support/workflow-bundle';
import { envWithout, leftoversOf, startTopologyStack } from './topology-stack';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'];

/** The text of the page and of every frame in it (the UI renders payloads in code blocks). */
async function pageText(page: Page): Promise<string> {
  const parts = await Promise.all(
    page.frames().map((f) =>
      f
        .locator('body')
        .innerText({ timeout: 2000 })
        .catch(() => ''),
    ),
  );
  return parts.join('\n');
}

describe('stack option ONCEFLOW_TEMPORAL=server (Temporal server on PostgreSQL, own Web UI)', function () {
  let stack: RunningStack;
  let config: Config;
  let connection: Connection;
  let client: Client;
  let pool: pg.Pool;
  const smokeWorkflowId = uniqueName('server-smoke');

  before(async function () {
    // The first build of the server takes minutes; later runs reuse it.
    this.timeout(20 * 60_000);
    // Kafka is the runner's; Temporal and Postgres are this stack's own.
    stack = await startTopologyStack(
      'temporal-server',
      envWithout(['TEMPORAL_ADDRESS', 'TEMPORAL_UI_URL', 'DATABASE_URL'], {
        ONCEFLOW_TEMPORAL: 'server',
      }),
    );
    config = loadConfig({ ...process.env, ...stack.state.env });
    connection = await Connection.connect({ address: config.temporal.address });
    client = createClient(connection, config);
    pool = createPool(config.database);
  });

  let closed = false;
  async function closeClients(): Promise<void> {
    if (closed) return;
    closed = true;
    await pool?.end();
    await connection?.close();
  }

  after(async () => {
    await closeClients();
    await stack?.stop();
  });

  /** smokeCheck through a worker of our own on this server: a workflow and an activity. */
  async function runSmokeCheck(workflowId: string): Promise<void> {
    const taskQueue = uniqueName('server-tq');
    const schema = uniqueName('server_wf');
    await migrate(pool, { schema });
    const workerConnection = await NativeConnection.connect({ address: config.temporal.address });
    try {
      const worker = await createWorker({
        domains: DOMAINS,
        connection: workerConnection,
        config,
        deps: { pool },
        taskQueue,
        workflowBundle: await workflowBundle(),
      });
      const result = await worker.runUntil(
        client.workflow.execute(smokeCheck, { taskQueue, workflowId, args: [{ schema }] }),
      );
      assert.equal(result.migrationVersion, migrations.at(-1)!.version);
    } finally {
      await workerConnection.close();
    }
  }

  it('answers GetClusterInfo with 4 history shards on PostgreSQL persistence and SQL visibility', async () => {
    const info = await connection.workflowService.getClusterInfo({});
    assert.ok(info.historyShardCount >= 4, `${info.historyShardCount} shards`);
    assert.equal(info.historyShardCount, HISTORY_SHARDS);
    assert.equal(info.persistenceStore, 'postgres12');
    assert.equal(info.visibilityStore, 'postgres12');
    assert.equal(info.serverVersion, VERSIONS.temporalServer);
    assert.equal(stack.state.env.TEMPORAL_ADDRESS.split(':')[0], '127.0.0.1');
    // The shards live in the stack's PostgreSQL, in Temporal's own database and role.
    const admin = new pg.Client({
      host: '127.0.0.1',
      port: Number(new URL(config.database.url).port),
      user: 'postgres',
      database: TEMPORAL_DB.persistence,
    });
    await admin.connect();
    try {
      const shards = await admin.query<{ n: string }>('SELECT count(*) AS n FROM shards');
      assert.equal(Number(shards.rows[0]!.n), HISTORY_SHARDS);
      const owner = await admin.query<{ owner: string }>(
        'SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1',
        [TEMPORAL_DB.visibility],
      );
      assert.equal(owner.rows[0]?.owner, TEMPORAL_DB.user);
    } finally {
      await admin.end();
    }
  });

  it('has the default namespace, with a retention, and the Keyword search attributes', async () => {
    const ns = await connection.workflowService.describeNamespace({ namespace: 'default' });
    assert.equal(Number(ns.config?.workflowExecutionRetentionTtl?.seconds), 72 * 60 * 60);
    const { customAttributes } = await connection.operatorService.listSearchAttributes({
      namespace: 'default',
    });
    for (const name of SEARCH_ATTRIBUTES) {
      assert.ok(customAttributes?.[name] !== undefined, `${name} is registered`);
    }
  });

  it('runs a workflow through a real worker and activity, and lists it from SQL visibility', async function () {
    this.timeout(180_000);
    await runSmokeCheck(smokeWorkflowId);
    const found = await waitFor(
      async () => {
        for await (const wf of client.workflow.list({
          query: `WorkflowId = '${smokeWorkflowId}' AND ExecutionStatus = 'Completed'`,
        })) {
          return wf;
        }
        return undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'the completed workflow in visibility' },
    );
    assert.equal(found.type, 'smokeCheck');
  });

  it('serves the Web UI from this server, payloads decoded through the codec server (Chromium)', async function () {
    this.timeout(240_000);
    const settings = (await (await fetch(`${config.temporal.uiUrl}/api/v1/settings`)).json()) as {
      Codec?: { Endpoint?: string };
    };
    assert.equal(settings.Codec?.Endpoint, stack.state.codecUrl, 'the stack’s codec server');

    const email = `${uniqueName('server-ui')}@example.com`;
    const orderId = uniqueName('ord-server-ui');
    const workflowId = uniqueName('wf-server-ui');
    // No worker polls this queue: the started event's input is all the UI needs to show.
    await client.workflow.start(orderFulfillment, {
      workflowId,
      taskQueue: uniqueName('no-worker'),
      args: [
        eventInputOf('OrderPlaced', orderId, {
          orderId,
          customerId: 'cus_server_ui',
          email,
          currency: 'EUR',
          items: [{ sku: 'sku-ui', quantity: 1, unitPriceMinor: 1999 }],
          totalMinor: 1999,
        }),
      ],
    });
    if (!existsSync(CHROMIUM)) {
      await installAptPackages(['chromium'], (m) => process.stdout.write(`      ${m}\n`));
    }
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1600, height: 1400 } });
      await page.goto(`${config.temporal.uiUrl}/namespaces/default/workflows/${workflowId}`);
      await page.getByText(workflowId).first().waitFor({ timeout: 60_000 });
      await page.getByText(email).first().waitFor({ timeout: 60_000 });
      assert.ok((await pageText(page)).includes(email), 'the decoded input shows the email');
    } finally {
      await browser.close();
      await client.workflow.getHandle(workflowId).terminate('test done');
    }
  });

  it('restarts a killed server on the same databases: history, attributes and workers survive', async function () {
    this.timeout(240_000);
    const before = stack.state.pids.temporal!;
    await restartTemporal(stack);
    const after = stack.state.pids.temporal;
    assert.ok(after !== undefined && after !== before, 'a new process is recorded');
    assert.equal(isAlive(before), false, 'the killed process is gone');
    assert.equal(isAlive(after), true);
    assert.equal(readStackState(stack.paths)?.pids.temporal, after, 'and in stack.json');
    const described = await client.workflow.getHandle(smokeWorkflowId).describe();
    assert.equal(described.status.name, 'COMPLETED', 'history kept in PostgreSQL');
    await runSmokeCheck(uniqueName('server-smoke-after'));
  });

  it('stops the server, its Web UI and the rest, and frees every port, with the stack', async function () {
    this.timeout(120_000);
    await closeClients();
    await stack.stop();
    assert.deepEqual(await leftoversOf(stack), []);
  });
});
