/**
 * Backlog drain for `npm run bench`: N OrderPlaced events produced before anything consumes
 * them, on a fresh 6-partition topic; then the worker, then the bridge start (compiled, with
 * their heap limits, as production runs them: harness/pipeline/production.ts), and the clock runs
 * until every order has its charge and its email in the sandbox providers' tables. Then a
 * sample of payouts through the same bridge and worker, for the shape of a payout's history.
 * Reports orders/s, CPU seconds per order of every process of the stack and of the ones this
 * bench starts, and peak RSS of the bridge and the worker. Then, on the same server, the
 * floor: workflows that do nothing and workflows with three no-op activities, started with
 * client.workflow.start at the bridge's concurrency, so the drain is read against what
 * Temporal itself allows.
 */
import { join } from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { setStock } from '../../src/domains/orders/inventory/stock-store';
import { ensureTopics } from '../../src/kafka/topics';
import { connectWorker } from '../../src/worker/connect-worker';
import { pickPort } from '../stack/ports';
import { waitFor } from '../../src/util/wait';
import { startComponent, stopComponent, waitForHttp, type Component } from '../pipeline/components';
import { productionArgs, type ProductionProcess } from '../pipeline/production';
import { WORKFLOW_TYPE } from '../../src/domains/orders/workflows/workflow-types';
import { generateOrderStream } from '../tools/order-stream';
import { generatePayoutStream } from '../tools/payout-stream';
import { payoutRequestedRoute } from '../../src/domains/payouts/routes';
import type { BenchContext } from './bridge';
import { tag } from './bridge-runs';
import { measureFloor, type RateFigure } from './floor';
import { readHistoryShape, type HistoryShape } from './history-shape';
import * as floorActivities from './floor-activities';
import { cpuDelta, cpuSeconds, peakRssMiB, perItem, round, selfCpu } from './proc-cpu';

export type { RateFigure } from './floor';

/** The drain topic's partitions (the measurement: a fresh 6-partition topic). */
export const DRAIN_PARTITIONS = 6;

export interface DrainOptions {
  orders: number;
  /** Starts in flight for the floor (the bridge's BRIDGE_START_CONCURRENCY). */
  concurrency: number;
  /** Payouts sent after the drain, whose completed runs give the payout's history shape. */
  payouts: number;
  /** Workflows per floor shape. */
  floorWorkflows: number;
  /** Write V8 CPU profiles of the worker and the bridge (--cpu-prof) into this folder. */
  profileDir?: string;
  /** The stack's own service pids (stack.json): temporal, kafka, postgres. */
  stackPids: Record<string, number>;
}

export interface DrainResult {
  orders: number;
  drain: RateFigure & { peakRssMiB: { bridge: number; worker: number } };
  floorEmpty: RateFigure;
  floorThreeActivities: RateFigure;
  ratios: { toEmpty: number; toThreeActivities: number };
  /** What a drained order's and a payout's history hold, and the three-activity floor's. */
  histories: { order: HistoryShape; payout: HistoryShape; floorThreeActivities: HistoryShape };
  profiles?: string;
}

async function countRows(pool: ReturnType<typeof createPool>): Promise<number> {
  const { rows } = await pool.query<{ charged: string; mailed: string }>(
    `SELECT (SELECT count(DISTINCT order_id) FROM provider_charges) AS charged,
            (SELECT count(DISTINCT order_id) FROM provider_emails) AS mailed`,
  );
  return Math.min(Number(rows[0]!.charged), Number(rows[0]!.mailed));
}

/**
 * Sends `payouts` happy payouts (below the approval amount) through the running bridge and
 * worker, waits for their runs to complete and reads their histories. Not timed: the drain's
 * figures are the orders'.
 */
async function samplePayouts(
  ctx: BenchContext,
  o: { topic: string; taskQueue: string; prefix: string; payouts: number; alive: Component[] },
): Promise<HistoryShape> {
  const stream = generatePayoutStream({ payouts: o.payouts, prefix: `${o.prefix}-payout` });
  const producer = ctx.kafka.producer();
  await producer.connect();
  try {
    await producer.send({ topic: o.topic, acks: -1, messages: stream.records });
  } finally {
    await producer.disconnect();
  }
  const query = `TaskQueue = '${o.taskQueue}' AND WorkflowType = '${payoutRequestedRoute.workflowType}' AND ExecutionStatus = 'Completed'`;
  await waitFor(
    async () => {
      const dead = o.alive.find((c) => c.child.exitCode !== null);
      if (dead) throw new Error(`${dead.name} exited; see ${dead.logFile}`);
      return (await ctx.client.workflow.count(query)).count >= o.payouts;
    },
    { timeoutMs: 300_000, intervalMs: 500, what: `${o.payouts} payouts completed` },
  );
  return readHistoryShape(ctx.client, o.taskQueue, payoutRequestedRoute.workflowType);
}

export async function benchDrain(options: DrainOptions, ctx: BenchContext): Promise<DrainResult> {
  const { config, client, kafka, logs } = ctx;
  const run = tag('drain');
  const schema = `${run}_ledger`;
  const providersSchema = `${run}_sandbox`;
  const topic = `${run}_orders`;
  const taskQueue = `${run}_tq`;
  const pool = createPool(config.database, { schema });
  const providersPool = createPool(config.database, { schema: providersSchema });
  const skus = Array.from({ length: 5 }, (_, i) => `${run}-SKU-${i + 1}`);
  const components: Component[] = [];
  const peak = { bridge: 0, worker: 0 };
  let sampler: NodeJS.Timeout | undefined;
  try {
    await migrate(pool, { schema });
    await migrate(providersPool, { schema: providersSchema });
    for (const sku of skus) await setStock(pool, sku, 1_000_000_000);
    await ensureTopics(kafka, { topics: [topic], partitions: DRAIN_PARTITIONS });
    // The backlog, before any consumer exists.
    const producer = kafka.producer();
    await producer.connect();
    const stream = generateOrderStream({
      orders: options.orders,
      seed: Date.now(),
      prefix: run,
      sku: (i, line) => skus[(i + line) % skus.length]!,
    });
    for (let i = 0; i < stream.records.length; i += 500) {
      await producer.send({ topic, acks: -1, messages: stream.records.slice(i, i + 500) });
    }
    await producer.disconnect();

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
    };
    /**
     * Worker and bridge as production runs them (package.json `start:*`: compiled, with their
     * heap limits), with --cpu-prof when asked (not allowed in NODE_OPTIONS).
     */
    const start = (name: ProductionProcess): Component =>
      startComponent(
        `drain-${name}`,
        productionArgs(
          name,
          options.profileDir
            ? ['--cpu-prof', `--cpu-prof-dir=${join(options.profileDir, name)}`]
            : [],
        ),
        env,
        logs,
      );
    const providers = startComponent('drain-providers', 'harness/sandbox/main.ts', env, logs);
    components.push(providers);
    await waitForHttp(providers, `${providersUrl}/admin/faults`);
    const worker = start('worker');
    components.push(worker);
    // The worker is up (workflows bundled, polling) before the clock starts.
    await waitFor(
      async () => {
        if (worker.child.exitCode !== null) throw new Error(`worker exited; see ${worker.logFile}`);
        const res = await client.workflowService.describeTaskQueue({
          namespace: config.temporal.namespace,
          taskQueue: { name: taskQueue },
          taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
        });
        return (res.pollers?.length ?? 0) > 0;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: 'the drain worker to poll' },
    );
    process.stderr.write(`drain: ${options.orders} orders in the backlog; starting the bridge\n`);
    const pidsBefore = {
      ...options.stackPids,
      providers: providers.child.pid!,
      worker: worker.child.pid!,
    };
    const before = { ...cpuSeconds(pidsBefore), bench: selfCpu(), bridge: 0 };
    const started = performance.now();
    const bridge = start('bridge');
    components.push(bridge);
    const pids = { ...pidsBefore, bridge: bridge.child.pid! };
    let after: Record<string, number> = before;
    sampler = setInterval(() => {
      peak.worker = Math.max(peak.worker, peakRssMiB(worker.child.pid!));
      peak.bridge = Math.max(peak.bridge, peakRssMiB(bridge.child.pid!));
    }, 500);
    await waitFor(
      async () => {
        const dead = components.find((c) => c.child.exitCode !== null);
        if (dead) throw new Error(`${dead.name} exited; see ${dead.logFile}`);
        // CPU read on every poll, so the last reading is within one interval of the finish.
        after = { ...cpuSeconds(pids), bench: selfCpu() };
        return (await countRows(providersPool)) >= options.orders;
      },
      {
        timeoutMs: 1_800_000,
        intervalMs: 200,
        what: `${options.orders} orders charged and mailed`,
      },
    );
    const seconds = (performance.now() - started) / 1000;
    peak.worker = Math.max(peak.worker, peakRssMiB(worker.child.pid!));
    peak.bridge = Math.max(peak.bridge, peakRssMiB(bridge.child.pid!));
    const drain = {
      perSecond: round(options.orders / seconds),
      seconds: round(seconds),
      cpuMsPerItem: perItem(cpuDelta(before, after), options.orders),
      peakRssMiB: { bridge: Math.round(peak.bridge), worker: Math.round(peak.worker) },
    };
    process.stderr.write(`drain: ${drain.perSecond} orders/s; stopping, then the floor\n`);
    const orderHistory = await readHistoryShape(client, taskQueue, WORKFLOW_TYPE.orderFulfillment);
    const payoutHistory = await samplePayouts(ctx, {
      topic,
      taskQueue,
      prefix: run,
      payouts: options.payouts,
      alive: components,
    });
    clearInterval(sampler);
    sampler = undefined;
    // Graceful stops, so the profiles are written.
    for (const c of components.splice(0).reverse()) await stopComponent(c);

    // The floor, on the same server, with a trivial worker in this process.
    const floorQueue = `${run}_floor`;
    // Once per process (the bench runs one drain): the floor's worker logs warnings only.
    Runtime.install({ logger: new DefaultLogger('WARN') });
    const connection = await connectWorker(config.temporal);
    const floorWorker = await Worker.create({
      connection,
      namespace: config.temporal.namespace,
      taskQueue: floorQueue,
      workflowsPath: require.resolve('./floor-workflows'),
      activities: floorActivities,
    });
    const floor = await floorWorker.runUntil(async () => {
      const empty = await measureFloor(
        client,
        floorQueue,
        'floorEmpty',
        options.floorWorkflows,
        options.concurrency,
        options.stackPids,
      );
      const three = await measureFloor(
        client,
        floorQueue,
        'floorThreeActivities',
        options.floorWorkflows,
        options.concurrency,
        options.stackPids,
      );
      return {
        empty,
        three,
        threeHistory: await readHistoryShape(client, floorQueue, 'floorThreeActivities'),
      };
    });
    await connection.close();
    return {
      orders: options.orders,
      drain,
      floorEmpty: floor.empty,
      floorThreeActivities: floor.three,
      histories: {
        order: orderHistory,
        payout: payoutHistory,
        floorThreeActivities: floor.threeHistory,
      },
      ratios: {
        toEmpty: round(drain.perSecond / floor.empty.perSecond, 2),
        toThreeActivities: round(drain.perSecond / floor.three.perSecond, 2),
      },
      profiles: options.profileDir,
    };
  } finally {
    if (sampler) clearInterval(sampler);
    for (const c of components.reverse()) await stopComponent(c);
    await pool.end();
    await providersPool.end();
  }
}
