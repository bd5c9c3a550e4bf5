import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { buildEventMessage } from '../../../src/events/event-message';
import { sampleOrderCancelled, sampleOrderPlaced } from '../../../src/domains/orders/order-samples';
import { setStock } from '../../../src/domains/orders/inventory/stock-store';
import type { RunningBridge } from '../../../src/kafka-bridge/bridge';
import { DEFAULT_ROUTES } from '../../../src/domains';
import type { RunningProviders } from '../../../harness/sandbox/server';
import { runReconcile, type ReconcileReport } from '../../../src/reconcile/reconcile';
import { waitFor } from '../../../src/util/wait';
import {
  SEARCH_ATTRIBUTE,
  SYSTEM_ATTRIBUTE,
  visibility,
} from '../../../src/temporal/search-attributes';
import { runStepOf } from '../../../src/temporal/run-step';
import { WORKFLOW_TYPE } from '../../../src/domains/orders/workflows/workflow-types';
import { generateOrderStream, type OrderStream } from '../../../harness/tools/order-stream';
import { createWorker } from '../../../src/worker/create-worker';
import { DOMAINS } from '../../../src/domains';
import { createPool } from '../../../src/db/pool';
import { BridgeHarness } from '../../support/bridge-harness';
import { startTestProviders, TEST_ADMIN_TOKEN, type TestDatabase } from '../../support/providers';
import { workflowBundle } from '../../support/workflow-bundle';

const ROOT = resolve(__dirname, '..', '..', '..');

/**
 * One real pipeline for the whole suite (bridge, worker and providers on a topic, task queue
 * and schema of their own): a clean run first, then each test plants one discrepancy on an
 * order of its own and checks that reconcile names it, and only it (besides earlier plants).
 */
describe('reconcile: finds planted discrepancies (real Kafka, Temporal, Postgres, providers)', function () {
  const prefix = `rc${Date.now().toString(36)}${randomBytes(2).toString('hex')}-order`;
  let h: BridgeHarness;
  let db: TestDatabase;
  let providers: RunningProviders;
  let worker: { worker: Worker; running: Promise<void>; connection: NativeConnection };
  let bridge: RunningBridge;
  let stream: OrderStream;
  /** Subjects of discrepancies planted so far: reported from then on, by design. */
  const planted = new Set<string>();
  const order = (i: number) => `${prefix}-${i}`;

  const reconcile = (): Promise<ReconcileReport> =>
    runReconcile(
      { kafka: h.kafka, client: h.client, pool: h.pool },
      {
        topics: [h.topic],
        prefix,
        schema: h.schema,
        providersUrl: providers.url,
        providersToken: TEST_ADMIN_TOKEN,
        routes: DEFAULT_ROUTES,
        translateOptions: { maxBytes: h.config.bridge.maxMessageBytes },
        readTimeoutMs: 60_000,
      },
    );

  /** Every offset committed, `expected` workflows of this run listed, none running. */
  async function waitForQuiescence(expected: number): Promise<void> {
    await h.waitUntilAllCommitted(90_000);
    const base = `EntityId STARTS_WITH '${prefix}'`;
    await waitFor(
      async () => {
        const [total, running] = await Promise.all([
          h.client.workflow.count(base),
          h.client.workflow.count(`${base} AND ExecutionStatus = 'Running'`),
        ]);
        return total.count >= expected && running.count === 0;
      },
      { timeoutMs: 90_000, intervalMs: 250, what: `${expected} workflows of ${prefix} closed` },
    );
  }

  async function stepOf(orderId: string): Promise<string | undefined> {
    const query = visibility.allOf(
      visibility.equals(SYSTEM_ATTRIBUTE.workflowType, WORKFLOW_TYPE.orderFulfillment),
      visibility.equals(SEARCH_ATTRIBUTE.entityId, orderId),
    );
    for await (const info of h.client.workflow.list({ query })) return runStepOf(info);
    return undefined;
  }

  /** Discrepancies about subjects nobody planted: must always be none. */
  const unplanned = (report: ReconcileReport) =>
    report.discrepancies.filter((d) => !planted.has(d.subject));
  const about = (report: ReconcileReport, subject: string) =>
    report.discrepancies.filter((d) => d.subject === subject).map((d) => d.class);

  before(async function () {
    this.timeout(240_000);
    h = await new BridgeHarness().setUp(3);
    db = { schema: h.schema, pool: createPool(h.config.database, { schema: h.schema }) };
    providers = await startTestProviders(db);
    const sku = `${prefix}-SKU`;
    await setStock(db.pool, sku, 100_000);
    const connection = await NativeConnection.connect({ address: h.config.temporal.address });
    const w = await createWorker({
      domains: DOMAINS,
      connection,
      config: h.config,
      deps: { pool: db.pool, providers: { url: providers.url, timeoutMs: 5000 } },
      taskQueue: h.taskQueue,
      workflowBundle: await workflowBundle(),
    });
    worker = { worker: w, running: w.run(), connection };
    bridge = await h.startBridge();

    // Redeliveries, re-emits, conflicts, poison and aggregates naming another order (dead-
    // lettered): all things a clean run must absorb.
    stream = generateOrderStream({
      orders: 6,
      seed: 11,
      prefix,
      duplicateRate: 0.3,
      reemitRate: 0.3,
      conflictRate: 0.3,
      poisonRate: 0.5,
      orderIdMismatchRate: 0.5,
      sku: () => sku,
      customerId: (i) => (i === 4 ? `declined-${prefix}` : `${prefix}-cust`),
    });
    await h.produce(stream.records);
    await waitForQuiescence(stream.counts.orders);
    assert.equal(await stepOf(order(0)), 'completed');
    assert.equal(await stepOf(order(4)), 'declined');

    // A cancellation after completion: the refund and the release run on the closed order.
    await h.produce([
      buildEventMessage({
        eventType: 'OrderCancelled',
        aggregateId: order(0),
        aggregateVersion: 2,
        data: sampleOrderCancelled(order(0)),
      }),
    ]);
    await waitForQuiescence(stream.counts.orders + 1);
    await waitFor(
      async () =>
        (await db.pool.query(`SELECT 1 FROM provider_refunds WHERE order_id = $1`, [order(0)]))
          .rowCount === 1,
      {
        timeoutMs: 30_000,
        what: `the refund of ${order(0)}`,
      },
    );
  });

  after(async function () {
    this.timeout(60_000);
    await bridge?.stop().catch(() => undefined);
    if (worker) {
      worker.worker.shutdown();
      await worker.running;
      await worker.connection.close();
    }
    await h?.tearDown();
    await providers?.close();
    await db?.pool.end();
  });

  it('reports clean on a clean run, having read every source', async () => {
    const report = await reconcile();
    assert.deepEqual(report.discrepancies, []);
    assert.equal(report.clean, true);
    assert.equal(report.read.orders, stream.counts.orders);
    assert.equal(report.read.workflows, stream.counts.orders + 1);
    const refused = stream.counts.poison + stream.counts.orderIdMismatches;
    assert.ok(stream.counts.orderIdMismatches > 0);
    assert.equal(report.read.poison, refused);
    assert.equal(report.read.dlqMessages, refused + stream.counts.conflicts);
    assert.ok(report.read.reservations >= stream.counts.orders - 1, 'reservations were read');
  });

  it('finds a double charge inserted by hand', async () => {
    const orderId = order(1);
    assert.equal(await stepOf(orderId), 'completed');
    await db.pool.query(
      `INSERT INTO "${h.schema}".provider_charges
         (id, idempotency_key, order_id, customer_id, amount_minor, currency)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        `ch_${randomUUID()}`,
        `planted-${randomUUID()}`,
        orderId,
        'cus',
        stream.orders.get(orderId)!.totalMinor,
        'EUR',
      ],
    );
    planted.add(orderId);
    const report = await reconcile();
    assert.deepEqual(about(report, orderId), [
      'multiple-effects-per-order',
      'charge-amount-mismatch',
    ]);
    assert.deepEqual(unplanned(report), []);
    assert.equal(report.clean, false);
  });

  it('finds a second reservation of an order under another key (grouped by order, not key)', async () => {
    const orderId = order(2);
    assert.equal(await stepOf(orderId), 'completed');
    const { rows } = await db.pool.query<{ key: string }>(
      `SELECT key FROM "${h.schema}".inventory_reservations WHERE order_id = $1`,
      [orderId],
    );
    assert.equal(rows.length, 1);
    // A key no step derives: a second reservation made outside the order's own keys.
    const other = `manual:${orderId}:reserve`;
    await db.pool.query(
      `INSERT INTO "${h.schema}".inventory_reservations (key, order_id, items, status)
       VALUES ($1, $2, '[]'::jsonb, 'reserved')`,
      [other, orderId],
    );
    planted.add(orderId);
    const report = await reconcile();
    assert.deepEqual(about(report, orderId), ['multiple-effects-per-order']);
    const [found] = report.discrepancies.filter((d) => d.subject === orderId);
    assert.match(found!.detail, /^2 reservations \(/);
    for (const key of [rows[0]!.key, other]) assert.ok(found!.detail.includes(key), key);
    assert.deepEqual(unplanned(report), []);
  });

  it('finds a missing refund (refund row of a cancelled order deleted)', async () => {
    const orderId = order(0);
    const { rowCount } = await db.pool.query(
      `DELETE FROM "${h.schema}".provider_refunds WHERE order_id = $1`,
      [orderId],
    );
    assert.equal(rowCount, 1);
    planted.add(orderId);
    const report = await reconcile();
    assert.deepEqual(about(report, orderId), ['refund-missing']);
    assert.deepEqual(unplanned(report), []);
  });

  it('finds a lost event (produced while no bridge runs), also through the CLI', async () => {
    await bridge.stop();
    const orderId = `${prefix}-lost`;
    await h.produce([
      buildEventMessage({
        eventType: 'OrderPlaced',
        aggregateId: orderId,
        aggregateVersion: 1,
        data: sampleOrderPlaced(orderId),
      }),
    ]);
    planted.add(orderId);
    const report = await reconcile();
    assert.deepEqual(about(report, orderId), ['event-without-workflow']);
    assert.match(
      report.discrepancies.find((d) => d.subject === orderId)!.detail,
      /not in the ledger/,
    );
    assert.deepEqual(unplanned(report), []);

    const cli = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
      (done) => {
        execFile(
          process.execPath,
          [
            '--import',
            'tsx',
            'src/reconcile/main.ts',
            '--topic',
            h.topic,
            '--prefix',
            prefix,
            '--schema',
            h.schema,
            '--providers-url',
            providers.url,
            '--json',
          ],
          { cwd: ROOT, env: process.env, timeout: 90_000 },
          (err, stdout, stderr) =>
            done({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
        );
      },
    );
    assert.equal(cli.code, 1, cli.stderr);
    const json = JSON.parse(cli.stdout) as ReconcileReport;
    assert.equal(json.clean, false);
    assert.equal(json.counts['event-without-workflow'], 1);
    // The CLI reads the same state as the call above, whatever other tests planted before
    // (or did not, when this test runs alone): the same findings and counts.
    assert.deepEqual(json.discrepancies, report.discrepancies);
    assert.deepEqual(json.counts, report.counts);
  });
});
