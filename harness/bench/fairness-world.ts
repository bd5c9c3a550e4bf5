/**
 * What the fairness bench's scenarios share (harness/bench/fairness.ts): the sandbox providers,
 * workers and bridges as their own processes (production builds, as the other benches run
 * them), producers of tenant-tagged orders that stamp each produce time, and the runs' start
 * and close times read back from visibility. Each scenario has its own topic, consumer group,
 * task queue and schemas, so it shares nothing with the others but the stack.
 */
import { loadavg } from 'node:os';
import type { Client } from '@temporalio/client';
import type { Producer } from 'kafkajs';
import type pg from 'pg';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { sampleOrderPlaced } from '../../src/domains/orders/order-samples';
import { setStock } from '../../src/domains/orders/inventory/stock-store';
import { WORKFLOW_TYPE } from '../../src/domains/orders/workflows/workflow-types';
import { buildEventMessage } from '../../src/events/event-message';
import { ensureTopics } from '../../src/kafka/topics';
import {
  SEARCH_ATTRIBUTE,
  SYSTEM_ATTRIBUTE,
  visibility,
} from '../../src/temporal/search-attributes';
import { waitFor } from '../../src/util/wait';
import { startComponent, stopComponent, waitForHttp, type Component } from '../pipeline/components';
import { productionArgs } from '../pipeline/production';
import { pickPort } from '../stack/ports';
import type { BenchContext } from './bridge';
import { PARTITIONS, tag } from './bridge-runs';

/** `load 1.52 1.20 0.98`: the machine's load averages (1, 5, 15 min), printed with each figure. */
export function loadLine(): string {
  return `load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}

/** The p-th percentile of sorted values (nearest rank); NaN for none. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One scenario's processes and names: its topic(s), group, task queue and schemas. */
export class FairnessWorld {
  readonly run = tag('fair');
  readonly topic = `${this.run}_orders`;
  readonly taskQueue = `${this.run}_tq`;
  readonly schema = `${this.run}_ledger`;
  readonly sandboxSchema = `${this.run}_sandbox`;
  readonly skus = Array.from({ length: 5 }, (_, i) => `${this.run}-SKU-${i + 1}`);
  readonly pool: pg.Pool;
  private readonly components: Component[] = [];
  private env: NodeJS.ProcessEnv = {};

  constructor(private readonly ctx: BenchContext) {
    this.pool = createPool(ctx.config.database, { schema: this.schema });
  }

  /** Migrates, stocks plenty (no order waits for an operator), creates topics, starts the providers. */
  async setUp(topics: readonly string[] = [this.topic]): Promise<void> {
    await migrate(this.pool, { schema: this.schema });
    for (const sku of this.skus) await setStock(this.pool, sku, 1_000_000_000);
    await ensureTopics(this.ctx.kafka, { topics: [...topics], partitions: PARTITIONS });
    const taken = new Set<number>();
    const providersUrl = `http://127.0.0.1:${await pickPort(4210, taken)}`;
    this.env = {
      ...this.ctx.env,
      KAFKA_TOPICS: this.topic,
      KAFKA_GROUP_ID: `${this.run}_group`,
      TEMPORAL_TASK_QUEUE: this.taskQueue,
      DATABASE_SCHEMA: this.schema,
      PROVIDERS_DB_SCHEMA: this.sandboxSchema,
      PROVIDERS_URL: providersUrl,
      LOG_LEVEL: 'warn',
    };
    const providers = this.start('fair-providers', 'harness/sandbox/main.ts', {});
    await waitForHttp(providers, `${providersUrl}/admin/faults`);
  }

  /** A worker process (production build); `env` adds settings (PROVIDER_RATE_LIMITS). */
  async startWorker(name: string, env: NodeJS.ProcessEnv = {}): Promise<Component> {
    const port = await pickPort(9665 + this.components.length, new Set());
    return this.start(name, productionArgs('worker'), {
      WORKER_METRICS_PORT: String(port),
      ...env,
    });
  }

  /** A bridge process reading `topic`; `env` adds settings (BRIDGE_MODE=backfill). */
  async startBridge(name: string, topic = this.topic, env: NodeJS.ProcessEnv = {}) {
    const port = await pickPort(9664 - this.components.length, new Set());
    return this.start(name, productionArgs('bridge'), {
      KAFKA_TOPICS: topic,
      BRIDGE_METRICS_PORT: String(port),
      ...env,
    });
  }

  private start(name: string, entry: string | string[], env: NodeJS.ProcessEnv): Component {
    const c = startComponent(name, entry, { ...this.env, ...env }, this.ctx.logs);
    this.components.push(c);
    return c;
  }

  /** Throws when one of the scenario's processes died (its log says why). */
  alive(): void {
    const dead = this.components.find((c) => c.child.exitCode !== null);
    if (dead) throw new Error(`${dead.name} exited; see ${dead.logFile}`);
  }

  /** Stops every process, last started first, and closes the pool. */
  async close(): Promise<void> {
    for (const c of [...this.components].reverse()) await stopComponent(c);
    await this.pool.end();
  }

  /** A producer of `tenant`'s orders on `topic` (IDs `<run>-<label>-<n>`), stamping each produce time. */
  orders(producer: Producer, label: string, tenant: string, topic = this.topic): TenantOrders {
    return new TenantOrders(producer, topic, `${this.run}-${label}`, tenant, this.skus);
  }

  /** Start and close times of the completed orders under `prefix`, by order ID. */
  async times(prefix: string): Promise<Map<string, { start: number; close: number }>> {
    const out = new Map<string, { start: number; close: number }>();
    const query = completedQuery(prefix);
    for await (const info of this.ctx.client.workflow.list({ query })) {
      const orderId = info.typedSearchAttributes.get(SEARCH_ATTRIBUTE.entityId);
      if (orderId && info.closeTime)
        out.set(orderId, { start: info.startTime.getTime(), close: info.closeTime.getTime() });
    }
    return out;
  }

  /** Waits until every order of `orders` completed (visibility). */
  async drained(orders: TenantOrders, timeoutMs: number): Promise<void> {
    await waitFor(
      async () => {
        this.alive();
        return (await countCompleted(this.ctx.client, orders.prefix)) >= orders.producedAt.size;
      },
      { timeoutMs, intervalMs: 1000, what: `${orders.prefix}: every order completed` },
    );
  }
}

/** Completed orderFulfillment runs whose EntityId starts with `prefix`. */
function completedQuery(prefix: string): string {
  return visibility.allOf(
    visibility.equals(SYSTEM_ATTRIBUTE.workflowType, WORKFLOW_TYPE.orderFulfillment),
    visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, 'Completed'),
    visibility.startsWith(SEARCH_ATTRIBUTE.entityId, prefix),
  );
}

export async function countCompleted(client: Client, prefix: string): Promise<number> {
  return (await client.workflow.count(completedQuery(prefix))).count;
}

/** One tenant's orders: produced in batches or paced, each produce time kept. */
export class TenantOrders {
  readonly producedAt = new Map<string, number>();
  constructor(
    private readonly producer: Producer,
    private readonly topic: string,
    readonly prefix: string,
    private readonly tenant: string,
    private readonly skus: readonly string[],
  ) {}

  /** Sends `n` more orders at once (batches of 500: one produce request each). */
  async send(n: number): Promise<void> {
    for (let sent = 0; sent < n; sent += 500) {
      const now = Date.now();
      const messages = Array.from({ length: Math.min(500, n - sent) }, () => {
        const orderId = `${this.prefix}-${this.producedAt.size}`;
        this.producedAt.set(orderId, now);
        const data = sampleOrderPlaced(orderId, {
          merchantId: this.tenant,
          lines: 1,
          sku: () => this.skus[this.producedAt.size % this.skus.length]!,
        });
        const r = buildEventMessage({
          eventType: 'OrderPlaced',
          aggregateId: orderId,
          aggregateVersion: 1,
          data,
        });
        return { ...r, timestamp: String(now) };
      });
      await this.producer.send({ topic: this.topic, acks: -1, messages });
    }
  }

  /** Sends `perSecond` orders a second until `until()` says stop (checked every 100 ms). */
  async pace(perSecond: number, until: () => boolean | Promise<boolean>): Promise<void> {
    const started = Date.now();
    const sentBefore = this.producedAt.size;
    while (!(await until())) {
      const due = Math.floor(((Date.now() - started) / 1000) * perSecond) + 1;
      await this.send(due - (this.producedAt.size - sentBefore));
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
