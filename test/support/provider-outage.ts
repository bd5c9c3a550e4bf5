import type { WorkflowHandle } from '@temporalio/client';
import type { OrderPlacedData } from '../../src/domains/orders/order-events';
import type { RunningProviders } from '../../harness/sandbox/server';
import { waitFor } from '../../src/util/wait';
import type { orderFulfillment } from '../../src/domains/orders/workflows';
import {
  orderStatusQuery,
  type OrderStatus,
} from '../../src/domains/orders/workflows/order-definitions';
import type { OrderEnv } from './order-env';
import { startTestProviders } from './providers';

/**
 * A full outage of the env's sandbox providers: `stop()` closes their HTTP server (every call
 * gets connection refused, as when the provider process is down), `start()` brings them back
 * on the same port with the same database (ledger and idempotency keys survive).
 */
export interface ProviderOutage {
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Closes whichever server is current (call before env.close()). */
  close(): Promise<void>;
}

export function providerOutage(env: OrderEnv): ProviderOutage {
  let current: RunningProviders | undefined = env.providers;
  return {
    stop: async () => {
      await current?.close();
      current = undefined;
    },
    start: async () => {
      current ??= await startTestProviders(env.db, { port: env.providers.port });
    },
    close: async () => {
      // The env closes its own (first) server; only a restarted one is ours to close.
      if (current && current !== env.providers) await current.close();
      current = undefined;
    },
  };
}

/** Runs `fn` over `items`, at most `concurrency` at once (small, to spare the CPU). */
export async function mapLimited<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return out;
}

/** Statuses of many orders, queried a few at a time. */
export function statusesOf(
  handles: readonly WorkflowHandle[],
  concurrency = 8,
): Promise<OrderStatus[]> {
  return mapLimited(handles, concurrency, (h) => h.query(orderStatusQuery));
}

export interface ParkedOutage {
  orders: OrderPlacedData[];
  handles: WorkflowHandle<typeof orderFulfillment>[];
  /** The outage, still on: `outage.start()` brings the providers back. */
  outage: ProviderOutage;
}

/**
 * Parks `count` orders at the charge step on a provider outage longer than the transient
 * window: stops the providers, starts the orders, and waits until every one is in
 * needs_attention at `charge`. The env's worker must have a short window
 * (`createOrderEnv({ transientRetryWindowMs })`); the providers stay down until the caller
 * calls `outage.start()` (then, e.g., `orders retry --all --parked-at charge --yes`).
 */
export async function parkOrdersForOutage(
  env: OrderEnv,
  options: {
    count: number;
    timeoutMs?: number;
    /** Order IDs `<prefix>-<i>`, so an ops command's `--prefix` selects exactly these. */
    orderIdPrefix?: string;
    /** Called once every order is seen `waiting` (before the window runs out). */
    whileWaiting?: (handles: WorkflowHandle<typeof orderFulfillment>[]) => Promise<void>;
  },
): Promise<ParkedOutage> {
  const outage = providerOutage(env);
  await outage.stop();
  const sku = await env.seedStock(options.count * 2);
  const prefix = options.orderIdPrefix;
  const orders = Array.from({ length: options.count }, (_, i) =>
    env.newOrder(sku, prefix === undefined ? {} : { orderId: `${prefix}-${i}` }),
  );
  const handles = await mapLimited(orders, 8, (o) => env.startOrder(o));
  const timeoutMs = options.timeoutMs ?? 120_000;
  if (options.whileWaiting) {
    await waitFor(async () => (await statusesOf(handles)).every((s) => s.step === 'waiting'), {
      timeoutMs,
      intervalMs: 500,
      what: 'every order to wait on the outage',
    });
    await options.whileWaiting(handles);
  }
  await waitFor(
    async () =>
      (await statusesOf(handles)).every(
        (s) => s.step === 'needs_attention' && s.parked?.step === 'charge',
      ),
    {
      timeoutMs: options.timeoutMs ?? 120_000,
      intervalMs: 1000,
      what: 'every order to park at charge',
    },
  );
  return { orders, handles, outage };
}
