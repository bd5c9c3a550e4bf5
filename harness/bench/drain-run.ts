/**
 * One drain of `npm run bench -- --only drain`: N OrderPlaced events on a fresh 6-partition
 * topic before anything consumes them (or, for the `direct` variants, N start commands the
 * bench sends itself), the worker (and the bridge) as production runs them, compiled with
 * their heap limits (harness/pipeline/production.ts), and the clock until every order has
 * its charge and its email in the sandbox providers' tables. Reports orders/s, CPU ms per
 * order of every process of the stack and of the ones started here, peak RSS, and the sizes
 * of the tables a drained order writes into, before and after (`prefill` rows in each first).
 * A variant (drain-variants.ts) changes the processes' settings or who starts the runs.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { setStock } from '../../src/domains/orders/inventory/stock-store';
import { ensureTopics } from '../../src/kafka/topics';
import { waitFor } from '../../src/util/wait';
import { WORKFLOW_TYPE } from '../../src/domains/orders/workflows/workflow-types';
import { pickPort } from '../stack/ports';
import { startComponent, stopComponent, waitForHttp, type Component } from '../pipeline/components';
import { productionArgs, type ProductionProcess } from '../pipeline/production';
import { generateOrderStream } from '../tools/order-stream';
import type { BenchContext } from './bridge';
import { tag } from './bridge-runs';
import { startCommandsOf, startDirect } from './direct-start';
import type { DrainVariant } from './drain-variants';
import type { RateFigure } from './floor';
import { readHistoryShape, type HistoryShape } from './history-shape';
import { prefillTables, tableSizes, type TableSize } from './prefill';
import { cpuDelta, cpuSeconds, peakRssMiB, perItem, round, selfCpu } from './proc-cpu';
import { samplePayouts } from './sample-payouts';
import { startTraceSink, type TraceSink } from './trace-sink';

/** The drain topic's partitions (the measurement: a fresh 6-partition topic). */
export const DRAIN_PARTITIONS = 6;

export interface DrainRunOptions {
  orders: number;
  variant: DrainVariant;
  /** Starts in flight of the `direct` variants (the bridge's BRIDGE_START_CONCURRENCY). */
  concurrency: number;
  /** Rows put into each growing table before the drain (prefill.ts). 0: empty tables. */
  prefill: number;
  /** Payouts sent after the drain for the payout's history shape; 0: none. */
  payouts: number;
  /** Write V8 CPU profiles of the worker and the bridge (--cpu-prof) into this folder. */
  profileDir?: string;
  /** The stack's own service pids (stack.json): temporal, kafka, postgres. */
  stackPids: Record<string, number>;
  log(line: string): void;
}

export interface DrainRunResult extends RateFigure {
  variant: string;
  orders: number;
  /** VmHWM of the worker and the bridge (0: the variant ran no bridge). */
  peakRssMiB: { worker: number; bridge: number };
  /** The tables a drained order writes into: after the prefill and after the drain. */
  sizes: { before: TableSize[]; after: TableSize[] };
  /** A drained order's history shape, and a payout's when payouts were sent. */
  histories: { order: HistoryShape; payout?: HistoryShape };
}

async function countCompleted(providers: pg.Pool): Promise<number> {
  const { rows } = await providers.query<{ charged: string; mailed: string }>(
    `SELECT (SELECT count(DISTINCT order_id) FROM provider_charges) AS charged,
            (SELECT count(DISTINCT order_id) FROM provider_emails) AS mailed`,
  );
  return Math.min(Number(rows[0]!.charged), Number(rows[0]!.mailed));
}

export async function runDrain(o: DrainRunOptions, ctx: BenchContext): Promise<DrainRunResult> {
  const { config, client, kafka, logs } = ctx;
  const run = tag(`drain_${o.variant.name.replace(/-/g, '_')}`);
  const schema = `${run}_ledger`;
  const providersSchema = `${run}_sandbox`;
  const topic = `${run}_orders`;
  const taskQueue = `${run}_tq`;
  const bridged = o.variant.starter === 'bridge';
  const pool = createPool(config.database, { schema });
  const providersPool = createPool(config.database, { schema: providersSchema });
  const skus = Array.from({ length: 5 }, (_, i) => `${run}-SKU-${i + 1}`);
  const components: Component[] = [];
  const peak = { bridge: 0, worker: 0 };
  let sampler: NodeJS.Timeout | undefined;
  let sink: TraceSink | undefined;
  try {
    await migrate(pool, { schema });
    await migrate(providersPool, { schema: providersSchema });
    for (const sku of skus) await setStock(pool, sku, 1_000_000_000);
    await prefillTables(pool, o.prefill, o.log);
    const before = await tableSizes(pool);
    const stream = generateOrderStream({
      orders: o.orders,
      seed: Date.now(),
      prefix: run,
      sku: (i, line) => skus[(i + line) % skus.length]!,
    });
    if (bridged) {
      // The backlog, before any consumer exists.
      await ensureTopics(kafka, { topics: [topic], partitions: DRAIN_PARTITIONS });
      const producer = kafka.producer();
      await producer.connect();
      try {
        for (let i = 0; i < stream.records.length; i += 500)
          await producer.send({ topic, acks: -1, messages: stream.records.slice(i, i + 500) });
      } finally {
        await producer.disconnect();
      }
    }
    const commands = bridged ? [] : startCommandsOf(stream.records);

    sink = o.variant.traceSink ? await startTraceSink() : undefined;
    const taken = new Set<number>();
    const providersUrl = `http://127.0.0.1:${await pickPort(4120, taken)}`;
    const env: NodeJS.ProcessEnv = {
      ...ctx.env,
      KAFKA_TOPICS: topic,
      KAFKA_GROUP_ID: `${run}_group`,
      TEMPORAL_TASK_QUEUE: taskQueue,
      DATABASE_SCHEMA: schema,
      PROVIDERS_DB_SCHEMA: providersSchema,
      PROVIDERS_URL: providersUrl,
      WORKER_METRICS_PORT: String(await pickPort(9575, taken)),
      BRIDGE_METRICS_PORT: String(await pickPort(9574, taken)),
      LOG_LEVEL: 'warn',
      ...o.variant.env,
      ...(sink ? { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url } : {}),
    };
    /**
     * Worker and bridge as production runs them (package.json `start:*`: compiled, with their
     * heap limits), with --cpu-prof when asked (not allowed in NODE_OPTIONS).
     */
    const start = (name: ProductionProcess): Component => {
      const argv = productionArgs(
        name,
        o.profileDir
          ? ['--cpu-prof', `--cpu-prof-dir=${join(o.profileDir, o.variant.name, name)}`]
          : [],
      );
      // A variant's worker flags go after the script's own, so they win.
      const flags = name === 'worker' ? (o.variant.workerFlags ?? []) : [];
      return startComponent(
        `drain-${name}`,
        [...argv.slice(0, -1), ...flags, argv.at(-1)!],
        env,
        logs,
      );
    };
    const providers = startComponent('drain-providers', 'harness/sandbox/main.ts', env, logs);
    components.push(providers);
    await waitForHttp(providers, `${providersUrl}/admin/faults`);
    const worker = start('worker');
    components.push(worker);
    const alive = () => {
      const dead = components.find((c) => c.child.exitCode !== null);
      if (dead) throw new Error(`${dead.name} exited; see ${dead.logFile}`);
    };
    // The worker is up (workflows bundled, polling) before the clock starts.
    await waitFor(
      async () => {
        alive();
        const res = await client.workflowService.describeTaskQueue({
          namespace: config.temporal.namespace,
          taskQueue: { name: taskQueue },
          taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
        });
        return (res.pollers?.length ?? 0) > 0;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: 'the drain worker to poll' },
    );
    o.log(
      `drain ${o.variant.name}: ${o.orders} orders ${bridged ? 'in the backlog; starting the bridge' : 'started by the bench'}`,
    );
    const pids: Record<string, number> = {
      ...o.stackPids,
      providers: providers.child.pid!,
      worker: worker.child.pid!,
    };
    const loadBefore = loadavg()[0]!;
    const cpuBefore = { ...cpuSeconds(pids), bench: selfCpu(), ...(bridged ? { bridge: 0 } : {}) };
    const started = performance.now();
    let bridge: Component | undefined;
    if (bridged) {
      bridge = start('bridge');
      components.push(bridge);
      pids.bridge = bridge.child.pid!;
    }
    const sample = () => {
      peak.worker = Math.max(peak.worker, peakRssMiB(worker.child.pid!));
      if (bridge) peak.bridge = Math.max(peak.bridge, peakRssMiB(bridge.child.pid!));
    };
    sampler = setInterval(sample, 500);
    const starting = bridged
      ? Promise.resolve()
      : startDirect(client, taskQueue, commands, {
          concurrency: o.concurrency,
          bare: o.variant.starter === 'direct-bare',
        });
    let cpuAfter: Record<string, number> = cpuBefore;
    await waitFor(
      async () => {
        alive();
        // CPU read on every poll, so the last reading is within one interval of the finish.
        cpuAfter = { ...cpuSeconds(pids), bench: selfCpu() };
        return (await countCompleted(providersPool)) >= o.orders;
      },
      { timeoutMs: 1_800_000, intervalMs: 200, what: `${o.orders} orders charged and mailed` },
    );
    await starting;
    const seconds = (performance.now() - started) / 1000;
    const load = { before: loadBefore, after: loadavg()[0]! };
    sample();
    if (sink && sink.requests() === 0)
      throw new Error('the tracing variant exported no span: its figures would not be tracing');
    // Charged and mailed is the drain's finish; a run closes a moment later (its publish and
    // settlement), and its history is read once it has (not timed).
    const completed = `TaskQueue = '${taskQueue}' AND WorkflowType = '${WORKFLOW_TYPE.orderFulfillment}' AND ExecutionStatus = 'Completed'`;
    await waitFor(
      async () => (alive(), (await client.workflow.count(completed)).count >= o.orders),
      {
        timeoutMs: 300_000,
        intervalMs: 500,
        what: `${o.orders} order runs completed`,
      },
    );
    const order = await readHistoryShape(client, taskQueue, WORKFLOW_TYPE.orderFulfillment);
    const payout =
      bridged && o.payouts > 0
        ? await samplePayouts(ctx, {
            topic,
            taskQueue,
            prefix: run,
            payouts: o.payouts,
            alive: components,
          })
        : undefined;
    clearInterval(sampler);
    sampler = undefined;
    // Graceful stops, so the profiles are written.
    for (const c of components.splice(0).reverse()) await stopComponent(c);
    return {
      variant: o.variant.name,
      orders: o.orders,
      perSecond: round(o.orders / seconds),
      seconds: round(seconds),
      cpuMsPerItem: perItem(cpuDelta(cpuBefore, cpuAfter), o.orders),
      load,
      peakRssMiB: { worker: Math.round(peak.worker), bridge: Math.round(peak.bridge) },
      sizes: { before, after: await tableSizes(pool) },
      histories: { order, ...(payout ? { payout } : {}) },
    };
  } finally {
    if (sampler) clearInterval(sampler);
    for (const c of components.reverse()) await stopComponent(c);
    await sink?.close();
    // The figures are taken: the stack keeps no prefilled gigabytes of a past bench.
    for (const s of [schema, providersSchema])
      await pool.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`).catch(() => undefined);
    await pool.end();
    await providersPool.end();
  }
}
