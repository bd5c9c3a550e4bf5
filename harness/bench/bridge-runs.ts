/**
 * The runs `npm run bench:bridge` (bridge.ts) is made of: the raw start loop it is measured
 * against, and one run of the bridge process: a warm-up, then a backlog produced at once.
 */
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { Admin, Kafka, Message } from 'kafkajs';
import type { Pool } from 'pg';
import { migrate } from '../../src/db/migrate';
import { createLedgerStore } from '../../src/db/ledger-store';
import { ensureTopics } from '../../src/kafka/topics';
import { generateOrderStream } from '../tools/order-stream';
import { runLimited } from '../../src/util/run-limited';
import { waitFor } from '../../src/util/wait';
import { startComponent, stopComponent } from '../pipeline/components';
import { productionArgs } from '../pipeline/production';
import { startCommandsOf, startDirect } from './direct-start';
import { cpuDelta, cpuSeconds, peakRssMiB, perItem, selfCpu, waitForQuietCpu } from './proc-cpu';

export const PARTITIONS = 4;

export function tag(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}`;
}

/**
 * True once the group has committed every partition's high watermark. One admin client for
 * the whole wait: a fresh connection per poll would add its own CPU to what is measured.
 */
export async function committedAll(admin: Admin, topic: string, groupId: string): Promise<boolean> {
  const high = await admin.fetchTopicOffsets(topic);
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return high.every(
    (h) => committed!.partitions.find((p) => p.partition === h.partition)?.offset === h.high,
  );
}

/**
 * Tight loop of client.workflow.start at `concurrency`, the ceiling the bridge is measured
 * against. It sends the very requests the bridge sends (same start options, memo, search
 * attributes, summary and details, via startOrDeduplicate) for a stream of the same shape, so
 * the ratio measures the bridge's own cost: Kafka, ledger, ordering and commits.
 */
export async function rawStartRate(
  client: Client,
  n: number,
  concurrency: number,
  stackPids: Record<string, number>,
  seed: number,
): Promise<{ rate: number; cpuMsPerStart: Record<string, number> }> {
  const taskQueue = tag('bench-raw');
  const commands = startCommandsOf(
    generateOrderStream({ orders: n, seed, prefix: tag('raw') }).records,
  );
  const cpuBefore = { ...cpuSeconds(stackPids), bench: selfCpu() };
  const started = performance.now();
  await startDirect(client, taskQueue, commands, { concurrency, bare: false });
  const rate = commands.length / ((performance.now() - started) / 1000);
  const cpuAfter = { ...cpuSeconds(stackPids), bench: selfCpu() };
  await terminateAll(
    client,
    commands.map((c) => c.workflowId),
  );
  return { rate, cpuMsPerStart: perItem(cpuDelta(cpuBefore, cpuAfter), commands.length) };
}

export async function terminateAll(client: Client, ids: string[]): Promise<void> {
  await runLimited(
    ids.map(
      (id) => () =>
        client.workflow
          .getHandle(id)
          .terminate('bench cleanup')
          .then(
            () => undefined,
            () => undefined,
          ),
    ),
    32,
  );
}

/** Per-key mean of CPU tables (ms per start by process), to one decimal. */
export function meanOf(tables: ReadonlyArray<Record<string, number>>): Record<string, number> {
  const keys = new Set(tables.flatMap((t) => Object.keys(t)));
  return Object.fromEntries(
    [...keys].map((k) => [
      k,
      Math.round((tables.reduce((sum, t) => sum + (t[k] ?? 0), 0) / tables.length) * 10) / 10,
    ]),
  );
}

export interface BridgeRunOptions {
  events: number;
  /**
   * Events the bridge handles before the measured ones, in the same process and the same
   * backlog: a production bridge runs for days, so its code is compiled and its heap sized
   * when a backlog comes; the raw loop's process is warm the same way (bridge.ts). Default: 0.
   */
  warmup?: number;
  concurrency: number;
  profileDir?: string;
  stackPids: Record<string, number>;
  kafka: Kafka;
  pool: Pool;
  logs: string;
}

/** Produces the records in chunks of 1000, every one acknowledged by all in-sync replicas. */
async function produceAll(kafka: Kafka, topic: string, records: Message[]): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    for (let i = 0; i < records.length; i += 1000) {
      await producer.send({ topic, acks: -1, messages: records.slice(i, i + 1000) });
    }
  } finally {
    await producer.disconnect();
  }
}

/**
 * One run of the bridge as its own process, as production runs it (`npm run start:bridge`),
 * on a fresh topic, schema and task queue, with the same number of starts in flight as the
 * raw loop: a backlog of `warmup` events, then `events` more, produced before it starts; the
 * `events` are measured. Returns its rate, CPU per start by process and the ledger it wrote
 * (the duplicates phase reuses the last one).
 */
export async function runBridgeOnce(o: BridgeRunOptions) {
  const { events, concurrency, stackPids, kafka, pool, warmup = 0 } = o;
  const topic = tag('bench_orders');
  const schema = tag('bench');
  const taskQueue = tag('bench-bridge');
  await migrate(pool, { schema });
  await ensureTopics(kafka, { topics: [topic], partitions: PARTITIONS });
  const warmPrefix = tag('w');
  const prefix = tag('o');
  const stream = generateOrderStream({ orders: events, seed: 42, prefix });
  // One backlog, the warm-up's events first in every partition: the bridge meets the
  // measured ones warm and with all of them there, as a bridge catching up on a backlog does.
  await produceAll(kafka, topic, [
    ...(warmup > 0
      ? generateOrderStream({ orders: warmup, seed: 43, prefix: warmPrefix }).records
      : []),
    ...stream.records,
  ]);
  const ledger = createLedgerStore(pool, { schema });
  await waitForQuietCpu(stackPids);
  process.stderr.write(
    `bridge: ${warmup > 0 ? `${warmup} events to warm up, then ` : ''}${events} events, ` +
      `${PARTITIONS} partitions, ${concurrency} starts in flight\n`,
  );
  const groupId = tag('bench-group');
  const bridgeProcess = startComponent(
    'bench-bridge',
    productionArgs(
      'bridge',
      o.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(o.profileDir, 'bench-bridge')}`] : [],
    ),
    {
      KAFKA_TOPICS: topic,
      KAFKA_GROUP_ID: groupId,
      TEMPORAL_TASK_QUEUE: taskQueue,
      DATABASE_SCHEMA: schema,
      BRIDGE_METRICS_PORT: '0',
      BRIDGE_PARTITIONS_CONCURRENCY: String(PARTITIONS),
      // The bridge's starts in flight over all its partitions, as the raw loop's.
      BRIDGE_START_CONCURRENCY: String(concurrency),
      // No worker closes these runs: no open-run caps, or the bridge would wait on them.
      BRIDGE_MAX_OPEN_RUNS: '0',
      BRIDGE_MAX_OPEN_RUNS_PER_TENANT: '0',
      BRIDGE_MAX_OPEN_BACKGROUND_RUNS: '0',
      LOG_LEVEL: 'warn',
    },
    o.logs,
  );
  const child = bridgeProcess.child;
  const bridgePids = { ...stackPids, bridge: child.pid! };
  // Without a warm-up, from the bridge's spawn: its start-up and group join are in its figure.
  // With one, from the first poll that finds every warm-up row written, over the measured
  // starts written since.
  let cpuBefore: Record<string, number> | undefined =
    warmup > 0 ? undefined : { ...cpuSeconds(stackPids), bench: selfCpu(), bridge: 0 };
  let measuredBefore = 0;
  let cpuAfter: Record<string, number> = {};
  let peak = 0;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await waitFor(
      async () => {
        peak = Math.max(peak, peakRssMiB(child.pid!));
        cpuAfter = { ...cpuSeconds(bridgePids), bench: selfCpu() };
        if (!cpuBefore && (await ledger.summarize(warmPrefix)).rows >= warmup) {
          cpuBefore = cpuAfter;
          measuredBefore = (await ledger.summarize(prefix)).rows;
        }
        return committedAll(admin, topic, groupId);
      },
      // Once a second: the rate comes from the ledger's timestamps, the peak is the kernel's
      // high-water mark, and a tighter poll is CPU taken from the bridge and the server.
      { timeoutMs: 600_000, intervalMs: 1000, what: 'the bridge to handle every event' },
    );
    peak = Math.max(peak, peakRssMiB(child.pid!));
  } finally {
    await admin.disconnect();
    await stopComponent(bridgeProcess);
  }
  // From the first to the last measured ledger write: no start-up, group join or warm-up.
  const written = await ledger.summarize(prefix);
  return {
    rate: written.rows / written.firstSeenSpanSeconds,
    rows: written.rows,
    inserts: written.writes,
    cpuMsPerStart: perItem(cpuDelta(cpuBefore ?? cpuAfter, cpuAfter), events - measuredBefore),
    peakRssMiB: peak,
    ledger,
    schema,
    stream,
    taskQueue,
  };
}
