/**
 * The floor and its ladder, on the drain's server: workflows started at the bridge's
 * concurrency and run by a worker in the bench's own process (its CPU is the `bench` column),
 * first the empty workflow and the three no-op activities (the floor the drain is read
 * against), then the three-activity floor with one of an order's extras added at a time, each
 * made by the product's own code, and all of them at once. An extra that lives inside an
 * order's run (its activity summaries, the claim and settle local activities, the publish)
 * cannot be switched off in the product without a branch in the run, so it is measured here,
 * from the floor up; the drain's variants (drain-variants.ts) measure what a setting switches.
 */
import { Client } from '@temporalio/client';
import {
  bundleWorkflowCode,
  DefaultLogger,
  Runtime,
  Worker,
  type NativeConnection,
  type WorkerOptions,
} from '@temporalio/worker';
import type { Config } from '../../src/config';
import { createEventProducer } from '../../src/activities/kafka';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { buildIdOf } from '../../src/db/workflow-build-store';
import { ensureTopics } from '../../src/kafka/topics';
import { startOrDeduplicate } from '../../src/kafka-bridge/workflow-starter';
import { dataConverterFor } from '../../src/temporal/data-converter';
import { connectWorker } from '../../src/worker/connect-worker';
import { settleCurrentBuild } from '../../src/worker/build-current';
import { generateOrderStream } from '../tools/order-stream';
import type { BenchContext } from './bridge';
import { tag } from './bridge-runs';
import { startCommandsOf } from './direct-start';
import { createFloorActivities } from './floor-activities';
import { measureFloor, type FloorWorkflowType, type RateFigure } from './floor';
import { readHistoryShape, type HistoryShape } from './history-shape';

export interface LadderRung {
  name: string;
  /** What the rung adds to the three-activity floor. */
  what: string;
  workflowType: FloorWorkflowType;
  /** Started with the bridge's own start request (input, memo, search attributes, summary, details). */
  bridgeStart?: boolean;
  /** The worker is a pinned build of a worker deployment, made current, as onceflow's is. */
  pinned?: boolean;
  /** Client and worker encrypt payloads with onceflow's codec (ONCEFLOW_ENCRYPTION=on). */
  codec?: boolean;
}

/** The rungs, by name; `empty` and `floor` are the floor every drain is read against. */
export const LADDER: readonly LadderRung[] = [
  { name: 'empty', what: 'a workflow that returns at once', workflowType: 'floorEmpty' },
  { name: 'floor', what: 'three no-op activities', workflowType: 'floorThreeActivities' },
  {
    name: 'start',
    what: "started with the bridge's start request (the order as input, memo, 4 search attributes, summary, details)",
    workflowType: 'floorThreeActivities',
    bridgeStart: true,
  },
  {
    name: 'summaries',
    what: 'a Web UI summary on each activity',
    workflowType: 'floorSummaries',
  },
  {
    name: 'pinned',
    what: 'the worker a pinned, current build of a worker deployment',
    workflowType: 'floorThreeActivities',
    pinned: true,
  },
  {
    name: 'encryption',
    what: "payloads through onceflow's AES-GCM codec, client and worker",
    workflowType: 'floorThreeActivities',
    codec: true,
  },
  {
    name: 'claim',
    what: 'the claim and its settlement: two local activities on the claim store (2 markers)',
    workflowType: 'floorClaimSettle',
  },
  {
    name: 'publish',
    what: "the third call publishes an event with the engine's publishEvent (idempotent producer, acks all)",
    workflowType: 'floorPublish',
  },
  {
    name: 'all',
    what: 'all of the above: an order without its domain work (reservation, provider calls) and without the engine code',
    workflowType: 'floorAll',
    bridgeStart: true,
    pinned: true,
    codec: true,
  },
];

/** The rungs named in `--ladder a,b` (`floor` is always measured; `none`: only the floor). */
export function parseLadder(value: string | undefined): LadderRung[] {
  const names = new Set(
    (value ?? 'none')
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean),
  );
  if (names.has('every')) return [...LADDER];
  for (const n of names)
    if (n !== 'none' && !LADDER.some((r) => r.name === n))
      throw new Error(
        `--ladder: unknown rung "${n}" (known: every, none, ${LADDER.map((r) => r.name).join(', ')})`,
      );
  return LADDER.filter((r) => r.name === 'empty' || r.name === 'floor' || names.has(r.name));
}

export interface RungResult extends RateFigure {
  rung: string;
  what: string;
  history: HistoryShape;
}

/** Every rung of `rungs`, one after the other, `n` workflows each at `concurrency`. */
export async function measureLadder(
  rungs: readonly LadderRung[],
  o: { n: number; concurrency: number; stackPids: Record<string, number> },
  ctx: BenchContext,
): Promise<RungResult[]> {
  const { config } = ctx;
  const run = tag('ladder');
  // Once per process (the bench runs one ladder): the floor's workers log warnings only.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await connectWorker(config.temporal);
  const plain = new Client({
    connection: ctx.client.connection,
    namespace: config.temporal.namespace,
  });
  const pool = createPool(config.database, { schema: `${run}_floor` });
  const topic = `${run}_events`;
  const producer = createEventProducer(config.kafka);
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('./floor-workflows'),
    logger: new DefaultLogger('WARN'),
  });
  const out: RungResult[] = [];
  try {
    await migrate(pool, { schema: `${run}_floor` });
    await ensureTopics(ctx.kafka, { topics: [topic], partitions: 6 });
    const activities = createFloorActivities({ pool, publish: { producer, topic, config } });
    for (const rung of rungs) {
      const taskQueue = `${run}_${rung.name}`;
      const client = rung.codec ? ctx.client : plain;
      const start = rung.bridgeStart
        ? bridgeStarts(client, taskQueue, rung.workflowType, o.n)
        : undefined;
      const figure = await withWorker(
        connection,
        config,
        { taskQueue, code, activities, rung },
        () =>
          measureFloor(
            client,
            taskQueue,
            rung.workflowType,
            o.n,
            o.concurrency,
            o.stackPids,
            start,
          ),
      );
      out.push({
        rung: rung.name,
        what: rung.what,
        ...figure,
        history: await readHistoryShape(client, taskQueue, rung.workflowType),
      });
    }
    return out;
  } finally {
    await producer.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${run}_floor" CASCADE`).catch(() => undefined);
    await pool.end();
    await connection.close();
  }
}

/**
 * The i-th start of a `bridgeStart` rung: an order's start command, as the bridge translates
 * it and with the bridge's own start call, for the rung's workflow type.
 */
function bridgeStarts(
  client: Client,
  taskQueue: string,
  workflowType: FloorWorkflowType,
  n: number,
): (i: number) => Promise<void> {
  const commands = startCommandsOf(
    generateOrderStream({ orders: n, seed: Date.now(), prefix: tag('ladder-order') }).records,
  ).map((cmd) => ({ ...cmd, workflowType }));
  return async (i) => {
    await startOrDeduplicate(client, taskQueue, commands[i]!, {
      topic: 'bench',
      partition: 0,
      offset: String(i),
    });
  };
}

/** Runs `measure` while a worker of the rung polls (pinned and made current first, if asked). */
async function withWorker<T>(
  connection: NativeConnection,
  config: Config,
  w: {
    taskQueue: string;
    code: string;
    activities: WorkerOptions['activities'];
    rung: LadderRung;
  },
  measure: () => Promise<T>,
): Promise<T> {
  const deployment = `${w.taskQueue}_deployment`;
  const buildId = buildIdOf(w.code);
  const worker = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: w.taskQueue,
    workflowBundle: { code: w.code },
    activities: w.activities,
    ...(w.rung.codec ? { dataConverter: dataConverterFor(config) } : {}),
    ...(w.rung.pinned
      ? {
          workerDeploymentOptions: {
            version: { deploymentName: deployment, buildId },
            useWorkerVersioning: true,
            defaultVersioningBehavior: 'PINNED' as const,
          },
        }
      : {}),
  });
  return worker.runUntil(async () => {
    if (w.rung.pinned)
      await settleCurrentBuild({
        workflowService: connection.workflowService,
        namespace: config.temporal.namespace,
        deployment,
        buildId,
        policy: 'always',
        log: { info: () => undefined, warn: () => undefined },
      });
    return measure();
  });
}
