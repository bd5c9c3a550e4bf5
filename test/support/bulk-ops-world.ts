import type { WorkflowHandle } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { DOMAINS } from '../../src/domains';
import { waitFor } from '../../src/util/wait';
import { createWorker } from '../../src/worker/create-worker';
import { createOrderEnv, type OrderEnv } from './order-env';
import { runOps, startProviderGate, type ProviderGate } from './ops-cli';
import { testConfig, uniqueName } from './services';
import { workflowBundle } from './workflow-bundle';

/** What the bulk operator command tests share; set by the suite's `before`. */
export interface BulkOpsWorld {
  env: OrderEnv;
  /** The payment API's gate: pass, reject every charge (400), or hold every charge. */
  gate: ProviderGate;
  /** The environment `npx onceflow` runs with: this suite's providers and schema. */
  cliEnv: Record<string, string>;
  /** A SKU with stock enough for every order of the suite. */
  sku: string;
  /** Starts `count` orders under a fresh prefix. */
  startOrders(
    count: number,
  ): Promise<{ prefix: string; started: Array<{ orderId: string; handle: WorkflowHandle }> }>;
  /** Parks `count` orders at charge and waits until visibility lists them as parked. */
  parkOrders(
    count: number,
  ): Promise<{ prefix: string; started: Array<{ orderId: string; handle: WorkflowHandle }> }>;
  /** The signals a run received, by name, with their payloads decoded (and decrypted). */
  /** The operator requests in the run's history: signals, and the updates it took. */
  signalsOf(
    handle: WorkflowHandle,
  ): Promise<
    Array<{ name: string | null | undefined; payload: Record<string, unknown> | undefined }>
  >;
}

/**
 * Registers the suite's `before`/`after` (call it inside a `describe`): an order environment
 * whose worker runs out of process, a payment gate in front of the providers, and a worker of
 * our own whose held charges time out after 8 s. Every order a test starts is terminated after.
 */
export function useBulkOpsWorld(): BulkOpsWorld {
  let worker: { worker: Worker; running: Promise<void>; connection: NativeConnection } | undefined;
  const handles: WorkflowHandle[] = [];
  const world = {} as BulkOpsWorld;

  before(async () => {
    world.env = await createOrderEnv({ inProcessWorker: false });
    world.gate = await startProviderGate(world.env.providers.url);
    const config = testConfig();
    const connection = await NativeConnection.connect({ address: config.temporal.address });
    // A held charge times out after 8 s: today's budget (6 attempts) then lasts about a
    // minute, room enough to pause it on a loaded machine before the order would park.
    const w = await createWorker({
      domains: DOMAINS,
      connection,
      config,
      deps: { pool: world.env.db.pool, providers: { url: world.gate.url, timeoutMs: 8000 } },
      taskQueue: world.env.taskQueue,
      workflowBundle: await workflowBundle(),
    });
    worker = { worker: w, running: w.run(), connection };
    world.cliEnv = { PROVIDERS_URL: world.env.providers.url, DATABASE_SCHEMA: world.env.db.schema };
    world.sku = await world.env.seedStock(100);
  });
  after(async () => {
    await Promise.all(handles.map((h) => h.terminate('test cleanup').catch(() => 0)));
    worker?.worker.shutdown();
    await worker?.running;
    await worker?.connection.close();
    await world.gate?.close();
    await world.env?.close();
  });

  world.startOrders = async (count) => {
    const prefix = uniqueName('bulk');
    const started: Array<{ orderId: string; handle: WorkflowHandle }> = [];
    for (let i = 0; i < count; i++) {
      const order = world.env.newOrder(world.sku, { orderId: `${prefix}-${i}` });
      const handle = await world.env.startOrder(order);
      handles.push(handle);
      started.push({ orderId: order.orderId, handle });
    }
    return { prefix, started };
  };

  world.parkOrders = async (count) => {
    world.gate.mode = 'reject-charges';
    const batch = await world.startOrders(count);
    await Promise.all(
      batch.started.map(({ handle }) =>
        world.env.waitForStatus(handle, (s) => s.parked?.step === 'charge', 'parking at charge'),
      ),
    );
    await waitFor(
      async () => {
        const run = await runOps(
          ['orders', 'list', '--step', 'needs_attention', '--prefix', batch.prefix, '--json'],
          world.cliEnv,
        );
        return run.json?.count === count ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'parked orders in visibility' },
    );
    return batch;
  };

  world.signalsOf = async (handle) => {
    const history = await handle.fetchHistory();
    // Signals, and the updates the run took (the CLI's retry and resolve go as updates).
    const requests = (history.events ?? []).flatMap((e) => {
      const signal = e.workflowExecutionSignaledEventAttributes;
      if (signal) return [{ name: signal.signalName, payloads: signal.input?.payloads }];
      const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
      return update ? [{ name: update.name, payloads: update.args?.payloads }] : [];
    });
    return Promise.all(
      requests.map(async (r) => {
        const [payload] = await decodeArrayFromPayloads(
          handle.client.options.loadedDataConverter,
          r.payloads,
        );
        return { name: r.name, payload: payload as Record<string, unknown> | undefined };
      }),
    );
  };

  return world;
}
