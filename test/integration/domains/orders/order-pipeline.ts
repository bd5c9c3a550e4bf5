import { NativeConnection, type Worker } from '@temporalio/worker';
import { resetGroupToEarliest } from '../../../../harness/chaos/forget';
import { createPool } from '../../../../src/db/pool';
import { buildEventMessage, type EventSpec } from '../../../../src/events/event-message';
import type {
  OrderCancelledData,
  OrderPlacedData,
} from '../../../../src/domains/orders/order-events';
import type { RunningBridge } from '../../../../src/kafka-bridge/bridge';
import { setStock } from '../../../../src/domains/orders/inventory/stock-store';
import type { LedgerView } from '../../../../harness/sandbox/admin-routes';
import type { RunningProviders } from '../../../../harness/sandbox/server';
import { waitFor } from '../../../../src/util/wait';
import { runStepOf } from '../../../../src/temporal/run-step';
import { createWorker } from '../../../../src/worker/create-worker';
import { DOMAINS } from '../../../../src/domains';
import type { OrderResult } from '../../../../src/domains/orders/workflows/order-definitions';
import { BridgeHarness } from '../../../support/bridge-harness';
import { getJson, startTestProviders, type TestDatabase } from '../../../support/providers';
import { uniqueName } from '../../../support/services';
import { workflowBundle } from '../../../support/workflow-bundle';

/** One run of an order as the bridge started it, with how it ended. */
export interface OrderRunResult {
  workflowId: string;
  result: OrderResult;
  step: string | undefined;
}

/**
 * The real pipeline for order tests that go through Kafka: a bridge, a worker and the
 * sandbox providers on a topic, task queue and schema of their own (the bridge's ledger,
 * inventory and the order claims share the schema, as in production).
 */
export class OrderPipeline {
  readonly h = new BridgeHarness();
  db!: TestDatabase;
  providers!: RunningProviders;
  private worker?: { worker: Worker; running: Promise<void>; connection: NativeConnection };
  private bridge?: RunningBridge;

  async setUp(): Promise<this> {
    await this.h.setUp(1);
    this.db = {
      schema: this.h.schema,
      pool: createPool(this.h.config.database, { schema: this.h.schema }),
    };
    this.providers = await startTestProviders(this.db);
    const connection = await NativeConnection.connect({ address: this.h.config.temporal.address });
    const worker = await createWorker({
      domains: DOMAINS,
      connection,
      config: this.h.config,
      deps: { pool: this.db.pool, providers: { url: this.providers.url, timeoutMs: 5000 } },
      taskQueue: this.h.taskQueue,
      workflowBundle: await workflowBundle(),
    });
    this.worker = { worker, running: worker.run(), connection };
    this.bridge = await this.h.startBridge();
    return this;
  }

  /**
   * The source topic read again from the beginning, as after an operator's offset reset (or a
   * new consumer group, a compacted topic replayed): the bridge stops, its group goes back to
   * the earliest offsets, a bridge starts again and handles everything once more.
   */
  async rereadFromStart(): Promise<void> {
    await this.bridge?.stop();
    await resetGroupToEarliest(this.h.kafka, this.h.groupId, this.h.topic);
    this.bridge = await this.h.startBridge();
    await this.h.waitUntilAllCommitted();
  }

  /** Produces an OrderCancelled event and waits until the bridge committed it. */
  async cancel(data: OrderCancelledData, aggregateVersion?: number): Promise<void> {
    await this.h.produce([
      buildEventMessage({
        eventType: 'OrderCancelled',
        aggregateId: data.orderId,
        data,
        ...(aggregateVersion !== undefined ? { aggregateVersion } : {}),
      }),
    ]);
    await this.h.waitUntilAllCommitted();
  }

  /** A fresh SKU with `available` units. */
  async seedStock(available: number): Promise<string> {
    const sku = uniqueName('sku');
    await setStock(this.db.pool, sku, available);
    return sku;
  }

  /** An OrderPlaced payload of 2 × 1250 of `sku`. */
  order(orderId: string, sku: string, over: Partial<OrderPlacedData> = {}): OrderPlacedData {
    return {
      orderId,
      customerId: 'cus_pipeline',
      email: 'buyer@example.com',
      currency: 'EUR',
      items: [{ sku, quantity: 2, unitPriceMinor: 1250 }],
      totalMinor: 2500,
      ...over,
    };
  }

  /** Produces OrderPlaced events (one each) and waits until the bridge committed them. */
  async place(
    events: Array<Omit<EventSpec<OrderPlacedData>, 'eventType' | 'aggregateId'>>,
  ): Promise<void> {
    await this.h.produce(
      events.map((e) =>
        buildEventMessage({ eventType: 'OrderPlaced', aggregateId: e.data.orderId, ...e }),
      ),
    );
    await this.h.waitUntilAllCommitted();
  }

  /** The `expected` orderFulfillment runs the bridge started for the order, once all ended. */
  async runsOf(orderId: string, expected: number): Promise<OrderRunResult[]> {
    const ids = await waitFor(
      async () => {
        const { rows } = await this.db.pool.query<{ workflow_id: string }>(
          `SELECT workflow_id FROM processed_events
            WHERE aggregate_id = $1 AND event_type = 'OrderPlaced' ORDER BY first_seen_at`,
          [orderId],
        );
        return rows.length >= expected ? rows.map((r) => r.workflow_id) : undefined;
      },
      { timeoutMs: 30_000, what: `${expected} runs of ${orderId} in the ledger` },
    );
    return Promise.all(
      ids.map(async (workflowId) => {
        const handle = this.h.client.workflow.getHandle(workflowId);
        const result = (await handle.result()) as OrderResult;
        const described = await handle.describe();
        const step = runStepOf(described);
        return { workflowId, result, step };
      }),
    );
  }

  /** The providers' charges, refunds and emails of an order. */
  ledger(orderId: string): Promise<LedgerView> {
    return getJson<LedgerView>(
      `${this.providers.url}/admin/ledger?orderId=${encodeURIComponent(orderId)}`,
    );
  }

  /** Reservation rows of an order in inventory. */
  async reservationsOf(orderId: string): Promise<Array<{ key: string; status: string }>> {
    const { rows } = await this.db.pool.query<{ key: string; status: string }>(
      'SELECT key, status FROM inventory_reservations WHERE order_id = $1',
      [orderId],
    );
    return rows;
  }

  /** Environment for the ops CLI pointed at this pipeline's schema and providers. */
  cliEnv(): Record<string, string> {
    return { PROVIDERS_URL: this.providers.url, DATABASE_SCHEMA: this.db.schema };
  }

  async tearDown(): Promise<void> {
    if (this.worker) {
      this.worker.worker.shutdown();
      await this.worker.running;
      await this.worker.connection.close();
    }
    await this.h.tearDown();
    await this.providers?.close();
    await this.db?.pool.end();
  }
}
