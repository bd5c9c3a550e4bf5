import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, type Client } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { RunningProviders } from '../../../harness/sandbox/server';
import { stackPaths } from '../../../harness/stack/paths';
import { pickPort } from '../../../harness/stack/ports';
import { stopProcessGroup } from '../../../harness/stack/processes';
import { installTemporal, startTemporal, waitForTemporal } from '../../../harness/stack/temporal';
import { findClaim } from '../../../src/db/entity-claim-store';
import { setStock } from '../../../src/domains/orders/inventory/stock-store';
import { orderFulfillment } from '../../../src/domains/orders/workflows';
import { orderStatusQuery } from '../../../src/domains/orders/workflows/order-definitions';
import { DOMAINS } from '../../../src/domains';
import { createClient } from '../../../src/temporal/connection';
import { waitFor } from '../../../src/util/wait';
import { createWorker } from '../../../src/worker/create-worker';
import { eventInputOf } from '../../support/order-env';
import {
  createTestDatabase,
  getJson,
  setFaults,
  startTestProviders,
  type TestDatabase,
} from '../../support/providers';
import type { LedgerView } from '../../../harness/sandbox/admin-routes';
import { testConfig, uniqueName } from '../../support/services';
import { workflowBundle } from '../../support/workflow-bundle';

/** Temporal's history limits, lowered on a server of this test's own so a wait crosses them. */
const LIMITS = {
  'limit.historyCount.suggestContinueAsNew': 60,
  'limit.historyCount.warn': 150,
  'limit.historyCount.error': 250,
};

/**
 * A long wait never outgrows its history: an order waits on a failing mail API round after
 * round (one a second here) on a server whose history limits are lowered, continues as new
 * when Temporal suggests it, keeps its keys, stack and claim, and completes with one charge
 * and one email once the API is back. Without it, Temporal terminates the run at the error
 * limit: nothing compensated, the claim never settled.
 */
describe('a run nears its history limit and continues as new (own dev server, lowered limits)', function () {
  this.timeout(300_000);
  const config = testConfig();
  const stateDir = mkdtempSync(join(tmpdir(), 'onceflow-history-'));
  let pid: number | undefined;
  let db: TestDatabase;
  let providers: RunningProviders;
  let connection: Connection;
  let client: Client;
  let workerConnection: NativeConnection;
  let worker: { worker: Worker; running: Promise<void> } | undefined;
  const taskQueue = uniqueName('history-tq');

  before(async () => {
    const ports = { grpc: await pickPort(19233, new Set()), ui: await pickPort(19333, new Set()) };
    const bin = await installTemporal(stackPaths(), () => undefined);
    pid = startTemporal(stackPaths(stateDir), bin, ports, { dynamicConfig: LIMITS });
    await waitForTemporal(ports, 120_000);
    const address = `127.0.0.1:${ports.grpc}`;
    db = await createTestDatabase('history');
    providers = await startTestProviders(db);
    connection = await Connection.connect({ address });
    client = createClient(connection, config);
    workerConnection = await NativeConnection.connect({ address });
    const w = await createWorker({
      domains: DOMAINS,
      connection: workerConnection,
      config: { ...config, temporal: { ...config.temporal, address } },
      deps: {
        pool: db.pool,
        providers: {
          url: providers.url,
          timeoutMs: 5000,
          transientRetryWindowMs: 60 * 60_000,
          transientRetryIntervalMs: 1000,
        },
      },
      taskQueue,
      workflowBundle: await workflowBundle(),
    });
    worker = { worker: w, running: w.run() };
  });
  after(async () => {
    if (worker) {
      worker.worker.shutdown();
      await worker.running;
    }
    await workerConnection?.close();
    await connection?.close();
    await providers?.close();
    await db?.pool.end();
    if (pid) await stopProcessGroup(pid);
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('waits across continue-as-new, then completes with one charge and one email', async () => {
    await setFaults(providers, { endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const sku = uniqueName('sku');
    await setStock(db.pool, sku, 5);
    const orderId = uniqueName('order');
    const order = {
      orderId,
      customerId: 'cus_history',
      email: 'h@example.com',
      currency: 'EUR',
      items: [{ sku, quantity: 1, unitPriceMinor: 700 }],
      totalMinor: 700,
    };
    const workflowId = uniqueName(`OrderPlaced:${orderId}`);
    const first = await client.workflow.start(orderFulfillment, {
      taskQueue,
      workflowId,
      args: [eventInputOf('OrderPlaced', orderId, order)],
    });
    // Waiting round after round until Temporal suggests continuing as new, and it does.
    const runs = async () => {
      const ids: string[] = [];
      for await (const r of client.workflow.list({ query: `WorkflowId = '${workflowId}'` }))
        ids.push(r.runId);
      return ids;
    };
    await waitFor(async () => ((await runs()).length >= 2 ? true : undefined), {
      timeoutMs: 180_000,
      intervalMs: 1000,
      what: 'the order to continue as new while it waits',
    });
    const latest = client.workflow.getHandle(workflowId);
    assert.equal((await latest.query(orderStatusQuery)).waiting?.step, 'email', 'still waiting');
    await setFaults(providers, { endpoints: { emails: {} } });
    const result = await latest.result();
    assert.equal(result.outcome, 'completed');
    const ledger = await getJson<LedgerView>(`${providers.url}/admin/ledger?orderId=${orderId}`);
    assert.equal(ledger.charges.length, 1, 'charged once across the chain');
    assert.equal(ledger.emails.length, 1, 'mailed once');
    const claim = await findClaim(db.pool, { domain: 'orders', entityId: orderId });
    assert.equal(claim?.runId, first.firstExecutionRunId, "the chain's first run owns the order");
    assert.equal(claim?.settled, 'completed');
    const status = await latest.query(orderStatusQuery);
    assert.deepEqual(
      status.recoveryPoints.map((p) => p.step),
      ['reserve', 'charge', 'email', 'announce'],
      'the status came through the chain',
    );
  });
});
