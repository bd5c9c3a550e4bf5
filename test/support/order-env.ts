import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { createClient } from '../../src/temporal/connection';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { OrderPlacedData } from '../../src/domains/orders/order-events';
import type { EventWorkflowInput } from '../../src/events/workflow-input';
import { deriveWorkflowId, versionIdentity } from '../../src/events/identity';
import { readStock, setStock } from '../../src/domains/orders/inventory/stock-store';
import type { LedgerView } from '../../harness/sandbox/admin-routes';
import type { RunningProviders } from '../../harness/sandbox/server';
import { waitFor } from '../../src/util/wait';
import { createWorker } from '../../src/worker/create-worker';
import { DOMAINS } from '../../src/domains';
import { orderFulfillment } from '../../src/domains/orders/workflows';
import {
  orderStatusQuery,
  type OrderStatus,
} from '../../src/domains/orders/workflows/order-definitions';
import {
  createTestDatabase,
  getJson,
  setFaults,
  startTestProviders,
  type TestDatabase,
} from './providers';
import { testConfig, uniqueName } from './services';
import { workflowBundle } from './workflow-bundle';
import { createLedgerStore } from '../../src/db/ledger-store';
import type { Config } from '../../src/config';

/**
 * Everything one order-workflow test needs, all its own: a migrated schema, the sandbox
 * providers on an ephemeral port, a real worker on a unique task queue, a Temporal client.
 */
export interface OrderEnv {
  db: TestDatabase;
  providers: RunningProviders;
  client: Client;
  taskQueue: string;
  /** A fresh order for `sku` (2 units × 1250), customer overridable (e.g. `declined-…`). */
  newOrder(sku: string, over?: Partial<OrderPlacedData>): OrderPlacedData;
  startOrder(order: OrderPlacedData): Promise<WorkflowHandle<typeof orderFulfillment>>;
  status(handle: WorkflowHandle): Promise<OrderStatus>;
  waitForStatus(
    handle: WorkflowHandle,
    predicate: (s: OrderStatus) => boolean,
    what: string,
  ): Promise<OrderStatus>;
  ledger(orderId: string): Promise<LedgerView>;
  setFaults(settings: unknown): Promise<void>;
  seedStock(available: number): Promise<string>;
  stockOf(sku: string): Promise<number>;
  /** Shuts the in-process worker down (the server keeps the workflows; nothing answers queries). */
  stopWorker(): Promise<void>;
  close(): Promise<void>;
}

/** The input the bridge gives a workflow: the event's data and where it came from. */
export function eventInputOf<T>(
  eventType: string,
  aggregateId: string,
  data: T,
): EventWorkflowInput<T> {
  const eventId = uniqueName('evt');
  return {
    data,
    event: {
      eventId,
      eventType,
      identity: eventId,
      aggregateId,
      fingerprint: 'test',
      source: { topic: 'orders', partition: 0, offset: '0' },
    },
  };
}

/** Options of createOrderEnv. */
export interface OrderEnvOptions {
  /** Run a worker in this process. Default: true; crash tests run worker processes instead. */
  inProcessWorker?: boolean;
  /** The worker's ORDER_TRANSIENT_RETRY_WINDOW in ms. Default: 1000, so tests that park do so in seconds. */
  transientRetryWindowMs?: number;
  /** The worker's ORDER_TRANSIENT_RETRY_INTERVAL in ms (a waiting round's pause). Default: the worker's. */
  transientRetryIntervalMs?: number;
  /** The worker's TENANT_WEIGHTS and PROVIDER_RATE_LIMITS. Default: the test config's (none). */
  fairness?: Config['fairness'];
}

export async function createOrderEnv(options: OrderEnvOptions = {}): Promise<OrderEnv> {
  const base = testConfig();
  const config = { ...base, fairness: options.fairness ?? base.fairness };
  const db = await createTestDatabase('orders');
  const providers = await startTestProviders(db);
  const taskQueue = uniqueName('orders-tq');
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = createClient(connection, config);
  let inProcess:
    { worker: Worker; running: Promise<void>; connection: NativeConnection } | undefined;
  if (options.inProcessWorker ?? true) {
    const workerConnection = await NativeConnection.connect({ address: config.temporal.address });
    const worker = await createWorker({
      domains: DOMAINS,
      connection: workerConnection,
      config,
      deps: {
        pool: db.pool,
        providers: {
          url: providers.url,
          timeoutMs: 5000,
          transientRetryWindowMs: options.transientRetryWindowMs ?? 1000,
          ...(options.transientRetryIntervalMs !== undefined
            ? { transientRetryIntervalMs: options.transientRetryIntervalMs }
            : {}),
        },
      },
      taskQueue,
      workflowBundle: await workflowBundle(),
    });
    inProcess = { worker, running: worker.run(), connection: workerConnection };
  }

  const env: OrderEnv = {
    db,
    providers,
    client,
    taskQueue,
    newOrder: (sku, over = {}) => ({
      orderId: uniqueName('order'),
      customerId: 'cus_test',
      email: 'buyer@example.com',
      currency: 'EUR',
      items: [{ sku, quantity: 2, unitPriceMinor: 1250 }],
      totalMinor: 2500,
      ...over,
    }),
    startOrder: async (order) => {
      const identity = versionIdentity(order.orderId, 1);
      const workflowId = deriveWorkflowId('OrderPlaced', identity);
      const handle = await client.workflow.start(orderFulfillment, {
        taskQueue,
        workflowId,
        args: [eventInputOf('OrderPlaced', order.orderId, order)],
      });
      // What the bridge does after a start: the ledger row that maps the order to its run.
      await createLedgerStore(db.pool, { schema: db.schema }).recordStarted({
        identity,
        eventType: 'OrderPlaced',
        eventId: uniqueName('evt'),
        aggregateId: order.orderId,
        aggregateVersion: 1,
        fingerprint: 'test',
        workflowId,
        runId: handle.firstExecutionRunId,
        sourceTopic: 'orders',
        sourcePartition: 0,
        sourceOffset: '0',
      });
      return handle;
    },
    status: (handle) => handle.query(orderStatusQuery),
    waitForStatus: (handle, predicate, what) =>
      waitFor(
        async () => {
          const s = await handle.query(orderStatusQuery);
          return predicate(s) ? s : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100, what },
      ),
    ledger: (orderId) => getJson<LedgerView>(`${providers.url}/admin/ledger?orderId=${orderId}`),
    setFaults: (settings) => setFaults(providers, settings),
    seedStock: async (available) => {
      const sku = uniqueName('sku');
      await setStock(db.pool, sku, available);
      return sku;
    },
    stockOf: (sku) => readStock(db.pool, sku),
    stopWorker: async () => {
      const running = inProcess;
      inProcess = undefined;
      if (!running) return;
      running.worker.shutdown();
      await running.running;
      await running.connection.close();
    },
    close: async () => {
      await env.stopWorker();
      await connection.close();
      await providers.close();
      await db.pool.end();
    },
  };
  return env;
}
