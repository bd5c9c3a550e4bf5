/**
 * End-to-end measurements for `npm run bench`: providers, worker and bridge as their own
 * processes (as `npm run demo` runs them), with their own topic, group, task queue and schemas
 * so a run shares nothing with other runs. Two phases:
 *   1. sustained: a closed-loop producer keeps a bounded number of orders in flight, so it
 *      never outruns the pipeline; the rate is completed orders (workflow CloseTime) per second
 *      over the measured window, after a warm-up that is not counted;
 *   2. latency: an open-loop producer paced at half that rate; each order's produce time is
 *      stamped (kept here and as the Kafka record timestamp) and compared with its workflow
 *      CloseTime from visibility.
 * Peak RSS (VmHWM) of the bridge and the worker is sampled throughout.
 */
import type { Client } from '@temporalio/client';
import type { Producer } from 'kafkajs';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { setStock } from '../../src/domains/orders/inventory/stock-store';
import { ensureTopics } from '../../src/kafka/topics';
import {
  SEARCH_ATTRIBUTE,
  SYSTEM_ATTRIBUTE,
  visibility,
} from '../../src/temporal/search-attributes';
import { WORKFLOW_TYPE } from '../../src/domains/orders/workflows/workflow-types';
import { pickPort } from '../stack/ports';
import { waitFor } from '../../src/util/wait';
import { startComponent, stopComponent, waitForHttp, type Component } from '../pipeline/components';
import { productionArgs } from '../pipeline/production';
import { generateOrderStream } from '../tools/order-stream';
import type { BenchContext } from './bridge';
import { PARTITIONS, tag } from './bridge-runs';
import { peakRssMiB } from './proc-cpu';

export interface E2eOptions {
  durationMs: number;
  warmupMs: number;
  latencyMs: number;
  inflight: number;
}

export interface E2eResult {
  sustainedOrdersPerSecond: number;
  sustainedCompleted: number;
  sustainedWindowSeconds: number;
  latencyLoadOrdersPerSecond: number;
  latencyOrders: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  bridgePeakRssMiB: number;
  workerPeakRssMiB: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Produces clean orders (one OrderPlaced each) under `prefix`, stamping the produce time. */
class OrderProducer {
  private chunk = 0;
  readonly producedAt = new Map<string, number>();
  constructor(
    private readonly producer: Producer,
    private readonly topic: string,
    private readonly prefix: string,
    private readonly sku: (i: number, line: number) => string,
  ) {}

  async send(n: number): Promise<void> {
    if (n <= 0) return;
    // A fresh seed per chunk keeps event IDs unique; the ledger schema is per run anyway.
    const chunk = this.chunk++;
    const stream = generateOrderStream({
      orders: n,
      seed: Date.now() + chunk,
      prefix: `${this.prefix}-${chunk}`,
      sku: this.sku,
    });
    const now = Date.now();
    for (const id of stream.orders.keys()) this.producedAt.set(id, now);
    await this.producer.send({
      topic: this.topic,
      acks: -1,
      messages: stream.records.map((r) => ({ ...r, timestamp: String(now) })),
    });
  }
}

/** Completed orderFulfillment workflows whose OrderId starts with `prefix`. */
function completedOrdersQuery(prefix: string): string {
  return visibility.allOf(
    visibility.equals(SYSTEM_ATTRIBUTE.workflowType, WORKFLOW_TYPE.orderFulfillment),
    visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, 'Completed'),
    visibility.startsWith(SEARCH_ATTRIBUTE.entityId, prefix),
  );
}

/** Close times (ms) of completed orderFulfillment workflows under `prefix`, by OrderId. */
async function closeTimes(client: Client, prefix: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const query = completedOrdersQuery(prefix);
  for await (const info of client.workflow.list({ query })) {
    const orderId = info.typedSearchAttributes.get(SEARCH_ATTRIBUTE.entityId);
    if (!orderId) continue;
    if (info.closeTime) out.set(orderId, info.closeTime.getTime());
  }
  return out;
}

async function countCompleted(client: Client, prefix: string): Promise<number> {
  const query = completedOrdersQuery(prefix);
  return (await client.workflow.count(query)).count;
}

export async function benchEndToEnd(options: E2eOptions, ctx: BenchContext): Promise<E2eResult> {
  const { config, client, kafka, logs } = ctx;
  const run = tag('bench');
  const schema = `${run}_ledger`;
  const topic = `${run}_orders`;
  const pool = createPool(config.database, { schema });
  const skus = Array.from({ length: 5 }, (_, i) => `${run}-SKU-${i + 1}`);
  const components: Component[] = [];
  const peak = { bridge: 0, worker: 0 };
  let sampler: NodeJS.Timeout | undefined;
  try {
    // Stock is checked by the worker; plenty of it, so no order waits for an operator.
    await migrate(pool, { schema });
    for (const sku of skus) await setStock(pool, sku, 1_000_000_000);
    await ensureTopics(kafka, { topics: [topic], partitions: PARTITIONS });

    const taken = new Set<number>();
    const providersUrl = `http://127.0.0.1:${await pickPort(4110, taken)}`;
    const env = {
      ...ctx.env,
      KAFKA_TOPICS: topic,
      KAFKA_GROUP_ID: `${run}_group`,
      TEMPORAL_TASK_QUEUE: `${run}_tq`,
      DATABASE_SCHEMA: schema,
      PROVIDERS_DB_SCHEMA: `${run}_sandbox`,
      PROVIDERS_URL: providersUrl,
      WORKER_METRICS_PORT: String(await pickPort(9565, taken)),
      BRIDGE_METRICS_PORT: String(await pickPort(9564, taken)),
      LOG_LEVEL: 'warn',
    };
    const providers = startComponent('bench-providers', 'harness/sandbox/main.ts', env, logs);
    components.push(providers);
    await waitForHttp(providers, `${providersUrl}/admin/faults`);
    // Worker and bridge as production runs them (package.json `start:*`).
    const worker = startComponent('bench-worker', productionArgs('worker'), env, logs);
    const bridge = startComponent('bench-bridge', productionArgs('bridge'), env, logs);
    components.push(worker, bridge);
    sampler = setInterval(() => {
      for (const c of components) {
        if (c.child.exitCode !== null) continue;
        const which = c === worker ? 'worker' : c === bridge ? 'bridge' : undefined;
        if (which) peak[which] = Math.max(peak[which], peakRssMiB(c.child.pid!));
      }
    }, 500);
    const alive = () => {
      const dead = components.find((c) => c.child.exitCode !== null);
      if (dead) throw new Error(`${dead.name} exited; see ${dead.logFile}`);
    };

    const producer = kafka.producer();
    await producer.connect();
    const sku = (i: number, line: number) => skus[(i + line) % skus.length]!;

    // Phase 1: closed loop. In flight = produced − completed (visibility lags, so it errs low).
    const sustainedPrefix = `${run}-s`;
    const sustained = new OrderProducer(producer, topic, sustainedPrefix, sku);
    // The window opens a warm-up after the first completion, so worker start-up (bundling the
    // workflows) and group join are never counted.
    let windowStart = Infinity;
    let windowEnd = Infinity;
    process.stderr.write(
      `e2e sustained: ${options.warmupMs / 1000} s warm-up + ${options.durationMs / 1000} s, ≤ ${options.inflight} in flight\n`,
    );
    const firstDeadline = Date.now() + 300_000;
    while (Date.now() < windowEnd) {
      alive();
      if (windowStart === Infinity && Date.now() > firstDeadline)
        throw new Error('no order completed within 5 minutes; see the bench-*.log files');
      const completed = await countCompleted(client, sustainedPrefix);
      if (completed > 0 && windowStart === Infinity) {
        windowStart = Date.now() + options.warmupMs;
        windowEnd = windowStart + options.durationMs;
      }
      await sustained.send(options.inflight - (sustained.producedAt.size - completed));
      await sleep(250);
    }
    const closes = await closeTimes(client, sustainedPrefix);
    const inWindow = [...closes.values()].filter((t) => t >= windowStart && t < windowEnd).length;
    const sustainedRate = inWindow / (options.durationMs / 1000);
    process.stderr.write(`e2e sustained: ${sustainedRate.toFixed(1)} orders/s; draining\n`);
    await waitFor(
      async () =>
        (alive(), await countCompleted(client, sustainedPrefix)) >= sustained.producedAt.size,
      { timeoutMs: 300_000, intervalMs: 1000, what: 'the sustained phase to drain' },
    );

    // Phase 2: open loop at half the sustained rate, paced every 100 ms.
    const rate = Math.max(1, sustainedRate / 2);
    const latencyPrefix = `${run}-l`;
    const paced = new OrderProducer(producer, topic, latencyPrefix, sku);
    process.stderr.write(
      `e2e latency: ${rate.toFixed(1)} orders/s for ${options.latencyMs / 1000} s\n`,
    );
    const latencyStart = Date.now();
    while (Date.now() - latencyStart < options.latencyMs) {
      alive();
      const due = Math.floor(((Date.now() - latencyStart) / 1000) * rate);
      await paced.send(due - paced.producedAt.size);
      await sleep(100);
    }
    await producer.disconnect();
    await waitFor(
      async () => (alive(), await countCompleted(client, latencyPrefix)) >= paced.producedAt.size,
      { timeoutMs: 300_000, intervalMs: 1000, what: 'the latency phase to complete' },
    );
    const latencyCloses = await closeTimes(client, latencyPrefix);
    const latencies = [...paced.producedAt]
      .map(([orderId, at]) => (latencyCloses.get(orderId) ?? NaN) - at)
      .filter((l) => Number.isFinite(l))
      .sort((a, b) => a - b);

    return {
      sustainedOrdersPerSecond: Number(sustainedRate.toFixed(1)),
      sustainedCompleted: inWindow,
      sustainedWindowSeconds: options.durationMs / 1000,
      latencyLoadOrdersPerSecond: Number(rate.toFixed(1)),
      latencyOrders: latencies.length,
      latencyMs: {
        p50: Math.round(percentile(latencies, 50)),
        p95: Math.round(percentile(latencies, 95)),
        p99: Math.round(percentile(latencies, 99)),
        max: Math.round(latencies.at(-1) ?? NaN),
      },
      bridgePeakRssMiB: Math.round(peak.bridge),
      workerPeakRssMiB: Math.round(peak.worker),
    };
  } finally {
    if (sampler) clearInterval(sampler);
    for (const c of components.reverse()) await stopComponent(c);
    await pool.end();
  }
}
