/**
 * The measured phases, the same for every system (harness/bench/peers/index.ts runs them once per
 * system, on its own topic and schemas):
 *   1. sustained: a backlog of pre-produced orders is kept in the topic (topped up as it
 *      drains, so the system never waits for input); the rate is orders completed (confirmation
 *      email in the provider's ledger) per second over `durationMs`, after `warmupMs` counted
 *      from the first completion (start-up, group join and JIT never count);
 *   2. latency: once the backlog is drained, an open-loop producer paced at half the system's
 *      own sustained rate; each order's produce time → its email's created_at;
 *   3. duplicates: `duplicates` re-deliveries of finished orders' records, then one fresh
 *      order per partition behind them; rate = duplicates ÷ time until the fresh ones complete.
 */
import type { Admin, Producer } from 'kafkajs';
import type pg from 'pg';
import { waitFor } from '../../../src/util/wait';
import type { OrderFeed } from './feed';
import { cpuDelta, perItem } from '../proc-cpu';
import { completionTimes, countCompleted } from './ledger';

export interface WorkloadOptions {
  durationMs: number;
  warmupMs: number;
  latencyMs: number;
  /** Orders kept waiting in the topic during the sustained phase. */
  backlog: number;
  duplicates: number;
  partitions: number;
}

export interface WorkloadTarget {
  topic: string;
  /** The system's Kafka consumer group (its committed offsets say what it has taken in). */
  groupId: string;
  providersSchema: string;
  /** Throws when one of the system's processes died (checked every poll). */
  alive(): void;
  log(message: string): void;
  /**
   * CPU seconds so far per process (the system's own and the shared services), read when the
   * sustained window opens and closes: the window's CPU per completed order.
   */
  cpuSeconds(): Record<string, number>;
}

export interface WorkloadResult {
  sustained: {
    ordersPerSecond: number;
    completed: number;
    windowSeconds: number;
    /** CPU ms per completed order in the window, per process, plus `total`. */
    cpuMsPerOrder: Record<string, number>;
  };
  latency: {
    loadOrdersPerSecond: number;
    orders: number;
    p50: number;
    p95: number;
    p99: number;
    max: number;
    /** Every latency (ms), sorted, for the chart. */
    samples: number[];
  };
  duplicates: { count: number; seconds: number; perSecond: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  ]!;
}

/** True when the group's committed offsets reach the end of every partition of the topic. */
export async function committedAll(admin: Admin, topic: string, groupId: string): Promise<boolean> {
  const ends = await admin.fetchTopicOffsets(topic);
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const at = new Map(committed?.partitions.map((p) => [p.partition, Number(p.offset)]) ?? []);
  return ends.every((e) => (at.get(e.partition) ?? -1) >= Number(e.high));
}

/** Puts the first backlog in the topic; call before the system starts. */
export async function preProduce(
  feed: OrderFeed,
  producer: Producer,
  topic: string,
  backlog: number,
): Promise<void> {
  await feed.send(producer, topic, feed.take(backlog));
}

export async function runWorkload(
  options: WorkloadOptions,
  ctx: {
    feed: OrderFeed;
    producer: Producer;
    admin: Admin;
    pool: pg.Pool;
    target: WorkloadTarget;
  },
): Promise<WorkloadResult> {
  const { feed, producer, admin, pool, target } = ctx;
  const completed = () => countCompleted(pool, target.providersSchema);

  // 1. Sustained drain of a standing backlog.
  let windowOpens: number | undefined;
  type Edge = { at: number; count: number; cpu: Record<string, number> };
  let start: Edge | undefined;
  let end: Edge | undefined;
  const firstDeadline = Date.now() + 300_000;
  while (!end) {
    target.alive();
    const now = Date.now();
    const done = await completed();
    if (windowOpens === undefined) {
      if (done > 0) windowOpens = now + options.warmupMs;
      else if (now > firstDeadline) throw new Error('no order completed within 5 minutes');
    } else if (!start && now >= windowOpens) {
      start = { at: now, count: done, cpu: target.cpuSeconds() };
      target.log(`sustained window opens (${done} done, warm-up over)`);
    } else if (start && now >= start.at + options.durationMs) {
      end = { at: now, count: done, cpu: target.cpuSeconds() };
      break;
    }
    const waiting = feed.counts.orders - done;
    if (waiting < options.backlog)
      await feed.send(producer, target.topic, feed.take(options.backlog - waiting));
    await sleep(250);
  }
  const windowSeconds = (end.at - start!.at) / 1000;
  const sustainedCount = end.count - start!.count;
  const rate = sustainedCount / windowSeconds;
  target.log(`sustained ${rate.toFixed(1)} orders/s; draining ${feed.counts.orders - end.count}`);
  await waitFor(async () => (target.alive(), (await completed()) >= feed.counts.orders), {
    timeoutMs: 600_000,
    intervalMs: 500,
    what: 'the backlog to drain',
  });

  // 2. Latency at half the system's own sustained rate.
  const load = Math.max(1, rate / 2);
  target.log(`latency: ${load.toFixed(1)} orders/s for ${options.latencyMs / 1000} s`);
  const producedAt = new Map<string, number>();
  const latencyStart = Date.now();
  let paced = 0;
  while (Date.now() - latencyStart < options.latencyMs) {
    target.alive();
    const due = Math.floor(((Date.now() - latencyStart) / 1000) * load) - paced;
    if (due > 0) {
      const orders = feed.take(due);
      const at = Date.now();
      await feed.send(producer, target.topic, orders);
      for (const o of orders) producedAt.set(o.orderId, at);
      paced += due;
    }
    await sleep(100);
  }
  await waitFor(async () => (target.alive(), (await completed()) >= feed.counts.orders), {
    timeoutMs: 300_000,
    intervalMs: 500,
    what: 'the latency phase to complete',
  });
  const closes = await completionTimes(pool, target.providersSchema, [...producedAt.keys()]);
  const samples = [...producedAt]
    .map(([id, at]) => (closes.get(id) ?? NaN) - at)
    .filter((l) => Number.isFinite(l))
    .sort((a, b) => a - b);

  // 3. Duplicate deliveries of finished orders, then a fresh order per partition behind them.
  const history = feed.sent.slice();
  const dups = Array.from({ length: options.duplicates }, (_, i) => history[i % history.length]!);
  const sentinels = feed.take(options.partitions);
  target.log(`duplicates: ${dups.length} re-deliveries`);
  const dupStart = Date.now();
  for (let i = 0; i < dups.length; i += 500) {
    await producer.send({ topic: target.topic, acks: -1, messages: dups.slice(i, i + 500) });
  }
  for (const [p, order] of sentinels.entries()) await feed.send(producer, target.topic, [order], p);
  const ids = sentinels.map((o) => o.orderId);
  // Absorbed: the fresh orders behind the duplicates are done AND the system has committed
  // every record (a system that runs deliveries in parallel may finish a fresh order first).
  await waitFor(
    async () => {
      target.alive();
      const done = await completionTimes(pool, target.providersSchema, ids);
      return done.size === ids.length && (await committedAll(admin, target.topic, target.groupId));
    },
    { timeoutMs: 600_000, intervalMs: 200, what: 'the duplicates to be absorbed' },
  );
  const dupSeconds = (Date.now() - dupStart) / 1000;

  return {
    sustained: {
      ordersPerSecond: Number(rate.toFixed(1)),
      completed: sustainedCount,
      windowSeconds: Number(windowSeconds.toFixed(1)),
      cpuMsPerOrder: perItem(cpuDelta(start!.cpu, end.cpu), Math.max(1, sustainedCount)),
    },
    latency: {
      loadOrdersPerSecond: Number(load.toFixed(1)),
      orders: samples.length,
      p50: Math.round(percentile(samples, 50)),
      p95: Math.round(percentile(samples, 95)),
      p99: Math.round(percentile(samples, 99)),
      max: Math.round(samples.at(-1) ?? NaN),
      samples: samples.map((s) => Math.round(s)),
    },
    duplicates: {
      count: dups.length,
      seconds: Number(dupSeconds.toFixed(1)),
      perSecond: Number((dups.length / dupSeconds).toFixed(0)),
    },
  };
}
