/**
 * `npm run bench -- --only fairness`: onceflow under bursts (issue 44), on the stack's Temporal:
 *   1. tenant A publishes `orders` at once while tenant B publishes 1 order/s until A's are
 *      done: B's produce → completion p50/p95 with Temporal's fairness on, off, and with no
 *      flood (baseline); B's wait in the bridge (produce → run started) beside it; and with
 *      fairness on, one setting changed each (VARIANTS): eager dispatch on, sticky queues
 *      off, no open-run caps;
 *   2. the mail provider limited to `mailLimit` calls/s (PROVIDER_RATE_LIMITS) with two
 *      workers and A's flood: the most mails the sandbox sent in any one second, runs parked,
 *      orders mailed other than once;
 *   3. a backfill of `backfill` re-read events (a BRIDGE_MODE=backfill bridge of its own)
 *      while live orders flow at 2/s: live p95 beside the live p95 without the backfill, with
 *      the bridge's open-run caps and without.
 * The load average is printed with every figure: the machine is shared.
 */
import type { Producer } from 'kafkajs';
import { waitFor } from '../../src/util/wait';
import type { BenchContext } from './bridge';
import type { FairnessOptions, FairnessResult, Latency } from './fairness-table';
import {
  countCompleted,
  FairnessWorld,
  loadLine,
  percentile,
  type TenantOrders,
} from './fairness-world';

export { formatFairness, type FairnessOptions, type FairnessResult } from './fairness-table';

/** Turns the stack's Temporal fairness on or off (a restart of its Temporal). */
export type SetFairness = (on: boolean) => Promise<void>;

async function latencyOf(world: FairnessWorld, orders: TenantOrders): Promise<Latency> {
  const times = await world.times(orders.prefix);
  const total: number[] = [];
  const bridge: number[] = [];
  for (const [id, at] of orders.producedAt) {
    const t = times.get(id);
    if (!t) continue;
    total.push(t.close - at);
    bridge.push(t.start - at);
  }
  total.sort((a, b) => a - b);
  bridge.sort((a, b) => a - b);
  return {
    orders: total.length,
    p50: Math.round(percentile(total, 50)),
    p95: Math.round(percentile(total, 95)),
    max: Math.round(total.at(-1) ?? NaN),
    bridgeP50: Math.round(percentile(bridge, 50)),
    bridgeP95: Math.round(percentile(bridge, 95)),
    bridgeMax: Math.round(bridge.at(-1) ?? NaN),
    load: loadLine(),
  };
}

/** One order through the scenario's pipeline first: start-up (bundling, group join) is never measured. */
async function warmUp(world: FairnessWorld, producer: Producer): Promise<void> {
  const warm = world.orders(producer, 'warm', 'warm-up');
  await warm.send(1);
  await world.drained(warm, 300_000);
}

const note = (m: string) => process.stderr.write(`fairness: ${m} · ${loadLine()}\n`);

/**
 * The settings a row varies from the defaults (eager dispatch, sticky queues, the bridge's
 * open-run caps), each set on the process it belongs to.
 */
export interface Variant {
  worker?: NodeJS.ProcessEnv;
  bridge?: NodeJS.ProcessEnv;
}

/** The rows beside the defaults: each of Temporal's and the bridge's settings on and off. */
export const VARIANTS = {
  'eager on': { worker: { WORKER_EAGER_ACTIVITIES: 'on' } },
  'sticky off': { worker: { WORKER_STICKY_QUEUE: 'off' } },
  'no open-run caps': {
    bridge: {
      BRIDGE_MAX_OPEN_RUNS: '0',
      BRIDGE_MAX_OPEN_RUNS_PER_TENANT: '0',
      BRIDGE_MAX_OPEN_BACKGROUND_RUNS: '0',
    },
  },
} as const satisfies Record<string, Variant>;

/** B alone at 1 order/s (the baseline), or against A's flood. */
async function tenantB(
  ctx: BenchContext,
  options: FairnessOptions,
  flood: boolean,
  variant: Variant = {},
): Promise<Latency & { floodDrainSeconds: number }> {
  const world = new FairnessWorld(ctx);
  const producer = ctx.kafka.producer();
  try {
    await world.setUp();
    await world.startWorker('fair-worker', variant.worker);
    await world.startBridge('fair-bridge', world.topic, variant.bridge);
    await producer.connect();
    await warmUp(world, producer);
    const a = world.orders(producer, 'a', 'tenant-a');
    const b = world.orders(producer, 'b', 'tenant-b');
    const started = Date.now();
    let floodDone = !flood;
    let floodDrainSeconds = 0;
    if (flood) {
      await a.send(options.orders);
      void world.drained(a, 3_600_000).then(() => {
        floodDone = true;
        floodDrainSeconds = (Date.now() - started) / 1000;
      });
    }
    const until = Date.now() + options.baselineSeconds * 1000;
    await b.pace(1, () => (world.alive(), flood ? floodDone : Date.now() >= until));
    await world.drained(b, 600_000);
    return {
      ...(await latencyOf(world, b)),
      floodDrainSeconds: Number(floodDrainSeconds.toFixed(1)),
    };
  } finally {
    await producer.disconnect();
    await world.close();
  }
}

/** A's flood through the mail provider limited to `mailLimit`/s, with two workers. */
async function mailLimited(
  ctx: BenchContext,
  options: FairnessOptions,
): Promise<FairnessResult['mail']> {
  const world = new FairnessWorld(ctx);
  const producer = ctx.kafka.producer();
  const limits = { PROVIDER_RATE_LIMITS: JSON.stringify({ mail: options.mailLimit }) };
  try {
    await world.setUp();
    await world.startWorker('fair-worker-1', limits);
    await world.startWorker('fair-worker-2', limits);
    await world.startBridge('fair-bridge');
    await producer.connect();
    await warmUp(world, producer);
    const a = world.orders(producer, 'm', 'tenant-a');
    const started = Date.now();
    await a.send(options.orders);
    // A parked order does not complete without an operator: all completed is none parked.
    await world.drained(a, Math.max(600_000, (options.orders / options.mailLimit) * 3000));
    const drainSeconds = (Date.now() - started) / 1000;
    const { rows } = await world.pool.query<{ order_id: string; at: Date }>(
      `SELECT order_id, created_at AS at FROM ${world.sandboxSchema}.provider_emails WHERE order_id LIKE $1`,
      [`${a.prefix}-%`],
    );
    const times = rows.map((r) => r.at.getTime()).sort((x, y) => x - y);
    let maxInAnySecond = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i]! - times[j]! >= 1000) j++;
      maxInAnySecond = Math.max(maxInAnySecond, i - j + 1);
    }
    const perCalendar = new Map<number, number>();
    for (const t of times)
      perCalendar.set(Math.floor(t / 1000), (perCalendar.get(Math.floor(t / 1000)) ?? 0) + 1);
    const perOrder = new Map<string, number>();
    for (const r of rows) perOrder.set(r.order_id, (perOrder.get(r.order_id) ?? 0) + 1);
    const completed = await countCompleted(ctx.client, a.prefix);
    return {
      orders: options.orders,
      limitPerSecond: options.mailLimit,
      maxInAnySecond,
      maxInAnyCalendarSecond: Math.max(0, ...perCalendar.values()),
      ratePerSecond:
        times.length > 1
          ? Number((((times.length - 1) * 1000) / (times.at(-1)! - times[0]!)).toFixed(2))
          : 0,
      parked: options.orders - completed,
      mailedOtherThanOnce: [...a.producedAt.keys()].filter((id) => perOrder.get(id) !== 1).length,
      drainSeconds: Number(drainSeconds.toFixed(1)),
      load: loadLine(),
    };
  } finally {
    await producer.disconnect();
    await world.close();
  }
}

/** Live orders at 2/s alone, then beside a backfill bridge re-reading `backfill` events. */
async function backfill(
  ctx: BenchContext,
  options: FairnessOptions,
  variant: Variant = {},
): Promise<Omit<FairnessResult['backfill'], 'uncapped'>> {
  const world = new FairnessWorld(ctx);
  const backfillTopic = `${world.run}_history`;
  const producer = ctx.kafka.producer();
  try {
    await world.setUp([world.topic, backfillTopic]);
    await world.startWorker('fair-worker');
    await world.startBridge('fair-bridge');
    await producer.connect();
    await warmUp(world, producer);
    // The history the backfill re-reads: on its topic before the backfill bridge starts.
    const history = world.orders(producer, 'h', 'history', backfillTopic);
    await history.send(options.backfill);
    const alone = world.orders(producer, 'l0', 'live');
    const until = Date.now() + options.baselineSeconds * 1000;
    await alone.pace(2, () => (world.alive(), Date.now() >= until));
    await world.drained(alone, 600_000);
    note('live alone measured; backfill starts');
    const started = Date.now();
    await world.startBridge('fair-backfill', backfillTopic, {
      BRIDGE_MODE: 'backfill',
      ...variant.bridge,
    });
    let done = false;
    let drainSeconds = 0;
    void world.drained(history, 3_600_000).then(() => {
      done = true;
      drainSeconds = (Date.now() - started) / 1000;
    });
    const during = world.orders(producer, 'l1', 'live');
    await during.pace(2, () => (world.alive(), done));
    await world.drained(during, 600_000);
    return {
      events: options.backfill,
      liveAlone: await latencyOf(world, alone),
      liveDuringBackfill: await latencyOf(world, during),
      drainSeconds: Number(drainSeconds.toFixed(1)),
    };
  } finally {
    await producer.disconnect();
    await world.close();
  }
}

/** Every scenario in turn; Temporal's fairness is turned off for one and back on after. */
export async function benchFairness(
  options: FairnessOptions,
  ctx: BenchContext,
  setFairness: SetFairness,
): Promise<FairnessResult> {
  note(`baseline: tenant B alone at 1/s for ${options.baselineSeconds} s`);
  const baseline = await tenantB(ctx, options, false);
  note(`fairness on: A floods ${options.orders}, B at 1/s`);
  const fairnessOn = await tenantB(ctx, options, true);
  note(`mail limited to ${options.mailLimit}/s, two workers, ${options.orders} orders`);
  const mail = await mailLimited(ctx, options);
  const variants: FairnessResult['variants'] = {};
  for (const [name, variant] of Object.entries(VARIANTS)) {
    note(`${name}: A floods ${options.orders}, B at 1/s`);
    variants[name] = await tenantB(ctx, options, true, variant);
  }
  note(`backfill of ${options.backfill} while live orders flow at 2/s`);
  const capped = await backfill(ctx, options);
  note(`backfill of ${options.backfill} without open-run caps, live orders at 2/s`);
  const uncapped = await backfill(ctx, options, VARIANTS['no open-run caps']);
  const bf = { ...capped, uncapped };
  note('fairness off (Temporal restarted without it): A floods, B at 1/s');
  await setFairness(false);
  let fairnessOff;
  try {
    await waitFor(() => ctx.client.workflowService.getSystemInfo({}).then(() => true), {
      timeoutMs: 60_000,
      intervalMs: 500,
      what: 'Temporal back after its restart',
    });
    fairnessOff = await tenantB(ctx, options, true);
  } finally {
    await setFairness(true);
  }
  return { options, baseline, fairnessOn, fairnessOff, variants, mail, backfill: bf };
}
