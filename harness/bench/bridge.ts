/**
 * `npm run bench:bridge`: the bridge's start rate against a tight start loop on the same
 * server, the duplicate absorption rate, and the bridge's peak RSS. Prints a table and writes
 * artifacts/bench-bridge.json. One run on one (noisy, 2-core) machine: read ratios, not
 * absolute numbers.
 *
 *   npm run bench:bridge -- --events 3000 --concurrency 32 --duplicates 20000 [--profile]
 *                           [--temporal dev|server] [--kafka-brokers 1|3]
 *
 * --profile writes a V8 CPU profile of the bridge process (--cpu-prof) to
 * artifacts/profiles/bench-bridge/, for where its time goes per message.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import pino from 'pino';
import type { Client } from '@temporalio/client';
import type { Admin, Kafka } from 'kafkajs';
import type { Pool } from 'pg';
import { startPreparedStack } from '../setup/dev-stack';
import { loadConfig, type Config } from '../../src/config';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { createLedgerStore } from '../../src/db/ledger-store';
import { qualifyTable } from '../../src/config/schema-name';
import { createKafka } from '../../src/kafka/kafka-client';
import { connectClient } from '../../src/temporal/connection';
import { ensureTopics } from '../../src/kafka/topics';
import { startBridge } from '../../src/kafka-bridge/bridge';
import { DEFAULT_ROUTES } from '../../src/domains';
import { generateOrderStream } from '../tools/order-stream';
import { runLimited } from '../../src/util/run-limited';
import { waitFor } from '../../src/util/wait';
import { startComponent } from '../pipeline/components';
import { buildProduction, productionArgs } from '../pipeline/production';
import { translateMessage, type StartCommand } from '../../src/events/translate';
import { startOrDeduplicate } from '../../src/kafka-bridge/workflow-starter';
import { cpuDelta, cpuSeconds, peakRssMiB, perItem, selfCpu, waitForQuietCpu } from './proc-cpu';
import { loadavg } from 'node:os';
import type { RunningStack } from '../stack/stack';
import { applyTopologyOptions, describeTopology, TOPOLOGY_OPTIONS } from './topology-option';

const ROOT = resolve(__dirname, '../..');
export const PARTITIONS = 4;

/** What every bench phase gets from harness/bench/index.ts: the stack's config, clients and logs folder. */
export interface BenchContext {
  config: Config;
  client: Client;
  kafka: Kafka;
  env: NodeJS.ProcessEnv;
  logs: string;
}

export function tag(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}`;
}

/**
 * True once the group has committed every partition's high watermark. One admin client for
 * the whole wait: a fresh connection per poll would add its own CPU to what is measured.
 */
async function committedAll(admin: Admin, topic: string, groupId: string): Promise<boolean> {
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
async function rawStartRate(
  client: Client,
  n: number,
  concurrency: number,
  stackPids: Record<string, number>,
  seed: number,
): Promise<{ rate: number; cpuMsPerStart: Record<string, number> }> {
  const taskQueue = tag('bench-raw');
  const commands = generateOrderStream({ orders: n, seed, prefix: tag('raw') })
    .records.map((r) =>
      translateMessage(
        { key: Buffer.from(r.key), value: Buffer.from(r.value), headers: r.headers },
        DEFAULT_ROUTES,
        { maxBytes: 1 << 20 },
      ),
    )
    .filter((t): t is StartCommand => t.kind === 'start');
  const cpuBefore = { ...cpuSeconds(stackPids), bench: selfCpu() };
  const started = performance.now();
  await runLimited(
    commands.map((cmd, i) => async () => {
      await startOrDeduplicate(client, taskQueue, cmd, {
        topic: 'bench',
        partition: 0,
        offset: String(i),
      });
    }),
    concurrency,
  );
  const rate = commands.length / ((performance.now() - started) / 1000);
  const cpuAfter = { ...cpuSeconds(stackPids), bench: selfCpu() };
  await terminateAll(
    client,
    commands.map((c) => c.workflowId),
  );
  return { rate, cpuMsPerStart: perItem(cpuDelta(cpuBefore, cpuAfter), commands.length) };
}

async function terminateAll(client: Client, ids: string[]): Promise<void> {
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

/** Per-key mean of two CPU tables (ms per start by process), to one decimal. */
function meanOf(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return Object.fromEntries(
    [...keys].map((k) => [k, Math.round((((a[k] ?? 0) + (b[k] ?? 0)) / 2) * 10) / 10]),
  );
}

/**
 * How many transactions wrote the ledger's rows (distinct `xmin`): one per message when each
 * start wrote its own row, one per flush when a batch's rows go together. Exact, and the
 * machine's load does not move it, unlike the start rates.
 */
async function ledgerWrites(pool: Pool, schema: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(DISTINCT xmin::text)::text AS n FROM ${qualifyTable(schema, 'processed_events')}`,
  );
  return Number(rows[0]!.n);
}

export interface BridgeBenchOptions {
  events: number;
  concurrency: number;
  duplicates: number;
  /** Write a --cpu-prof profile of the bridge process into this folder. Default: none. */
  profileDir?: string;
  /** The stack's own service pids (stack.json), for CPU per start per process. Default: none. */
  stackPids?: Record<string, number>;
}

export type BridgeBenchResult = Awaited<ReturnType<typeof benchBridge>>;

/** Exported so `npm run bench` (harness/bench/index.ts) reuses the same measurements. */
export async function benchBridge(
  { events, concurrency, duplicates, profileDir, stackPids = {} }: BridgeBenchOptions,
  { config, client, pool, logs }: { config: Config; client: Client; pool: Pool; logs: string },
) {
  const kafka = createKafka(config.kafka, 'bench');
  await waitForQuietCpu(stackPids);
  process.stderr.write(`raw start loop: ${events} starts at concurrency ${concurrency}\n`);
  const rawBefore = await rawStartRate(client, events, concurrency, stackPids, 41);

  // The bridge as its own process, on pre-produced events, with the same number of starts in flight.
  const topic = tag('bench_orders');
  const schema = tag('bench');
  const taskQueue = tag('bench-bridge');
  await migrate(pool, { schema });
  await ensureTopics(kafka, { topics: [topic], partitions: PARTITIONS });
  const stream = generateOrderStream({ orders: events, seed: 42, prefix: tag('o') });
  const producer = kafka.producer();
  await producer.connect();
  for (let i = 0; i < stream.records.length; i += 1000) {
    await producer.send({ topic, acks: -1, messages: stream.records.slice(i, i + 1000) });
  }
  await producer.disconnect();
  await waitForQuietCpu(stackPids);
  process.stderr.write(
    `bridge: ${events} pre-produced events, ${PARTITIONS} partitions × ${concurrency / PARTITIONS} starts\n`,
  );
  const groupId = tag('bench-group');
  // The bridge as its own process, as production runs it (`npm run start:bridge`); output to
  // the stack's logs.
  const bridgeProcess = startComponent(
    'bench-bridge',
    productionArgs(
      'bridge',
      profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, 'bench-bridge')}`] : [],
    ),
    {
      KAFKA_TOPICS: topic,
      KAFKA_GROUP_ID: groupId,
      TEMPORAL_TASK_QUEUE: taskQueue,
      DATABASE_SCHEMA: schema,
      BRIDGE_METRICS_PORT: '0',
      BRIDGE_PARTITIONS_CONCURRENCY: String(PARTITIONS),
      BRIDGE_START_CONCURRENCY: String(Math.max(1, concurrency / PARTITIONS)),
      LOG_LEVEL: 'warn',
    },
    logs,
  );
  const child = bridgeProcess.child;
  const bridgePids = { ...stackPids, bridge: child.pid! };
  // From the bridge's spawn: its start-up and group join are in its figure (a few hundred ms
  // of CPU), as they are in what it takes from the cores the Temporal server needs.
  const cpuBefore = { ...cpuSeconds(stackPids), bench: selfCpu(), bridge: 0 };
  let cpuAfter: Record<string, number> = cpuBefore;
  let peak = 0;
  const admin = kafka.admin();
  await admin.connect();
  try {
    await waitFor(
      async () => {
        peak = Math.max(peak, peakRssMiB(child.pid!));
        cpuAfter = { ...cpuSeconds(bridgePids), bench: selfCpu() };
        return committedAll(admin, topic, groupId);
      },
      // Once a second: the rate comes from the ledger's timestamps, the peak is the kernel's
      // high-water mark, and a tighter poll is CPU taken from the bridge and the server.
      { timeoutMs: 600_000, intervalMs: 1000, what: 'the bridge to handle every event' },
    );
  } finally {
    await admin.disconnect();
  }
  peak = Math.max(peak, peakRssMiB(child.pid!));
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  // From the first to the last ledger write: excludes process start-up and group join.
  const ledger = createLedgerStore(pool, { schema });
  const written = await ledger.summarize();
  const bridgeRate = written.rows / written.firstSeenSpanSeconds;
  const inserts = await ledgerWrites(pool, schema);

  // The raw loop again, after the bridge: the server's rate drifts as its database grows and
  // the machine's load moves, so the bridge is compared with the mean of the two raw runs
  // around it, not with one taken before it only.
  await waitForQuietCpu(stackPids);
  process.stderr.write(`raw start loop again: ${events} starts at concurrency ${concurrency}\n`);
  const rawAfter = await rawStartRate(client, events, concurrency, stackPids, 43);
  const raw = {
    rate: (rawBefore.rate + rawAfter.rate) / 2,
    cpuMsPerStart: meanOf(rawBefore.cpuMsPerStart, rawAfter.cpuMsPerStart),
  };

  // Duplicate absorption: the same identities again, all answered by the ledger.
  const dupTopic = tag('bench_dups');
  await ensureTopics(kafka, { topics: [dupTopic], partitions: PARTITIONS });
  const dupProducer = kafka.producer();
  await dupProducer.connect();
  const dupRecords = Array.from(
    { length: duplicates },
    (_, i) => stream.records[i % stream.records.length]!,
  );
  for (let i = 0; i < dupRecords.length; i += 2000) {
    await dupProducer.send({
      topic: dupTopic,
      acks: -1,
      messages: dupRecords.slice(i, i + 2000),
    });
  }
  await dupProducer.disconnect();
  const dupGroup = tag('bench-dup-group');
  const bridge = await startBridge({
    config: {
      ...config,
      bridge: {
        ...config.bridge,
        partitionsConcurrency: PARTITIONS,
        startConcurrency: concurrency / PARTITIONS,
      },
    },
    kafka,
    client,
    pool,
    log: pino({ level: 'warn' }),
    routes: DEFAULT_ROUTES,
    ledgerSchema: schema,
    topics: [dupTopic],
    groupId: dupGroup,
    taskQueue,
  });
  // Timed from the first message consumed, so group join is not counted.
  const consumed = async () => {
    const m = await bridge.metrics.consumed.get();
    return m.values.reduce((s, v) => s + v.value, 0);
  };
  await waitFor(async () => (await consumed()) > 0, {
    timeoutMs: 60_000,
    intervalMs: 20,
    what: 'first duplicate batch',
  });
  const dupStart = performance.now();
  const dupAdmin = kafka.admin();
  await dupAdmin.connect();
  try {
    await waitFor(() => committedAll(dupAdmin, dupTopic, dupGroup), {
      timeoutMs: 600_000,
      intervalMs: 100,
      what: 'duplicates absorbed',
    });
  } finally {
    await dupAdmin.disconnect();
  }
  const dupRate = duplicates / ((performance.now() - dupStart) / 1000);
  const dupMetric = await bridge.metrics.duplicates.get();
  const absorbed = dupMetric.values
    .filter((v) => v.labels.source === 'ledger')
    .reduce((s, v) => s + v.value, 0);
  await bridge.stop();

  await terminateAll(client, await ledger.listWorkflowIds());

  const result = {
    machine: `${process.platform} ${process.arch}, ${(await import('node:os')).cpus().length} cores`,
    events,
    concurrency,
    /** The mean of the raw loop's runs before and after the bridge's. */
    rawStartsPerSecond: Math.round(raw.rate),
    rawStartsPerSecondBeforeAfter: [Math.round(rawBefore.rate), Math.round(rawAfter.rate)],
    bridgeStartsPerSecond: Math.round(bridgeRate),
    /** Ledger rows the bridge wrote, and the INSERT transactions that wrote them. */
    ledgerRows: written.rows,
    ledgerInserts: inserts,
    ratio: Number((bridgeRate / raw.rate).toFixed(2)),
    /** CPU ms per start of each process (the bench process is the raw loop's client). */
    rawCpuMsPerStart: raw.cpuMsPerStart,
    /** CPU ms per event of each process while the bridge handled them (bench = its poller). */
    bridgeCpuMsPerStart: perItem(cpuDelta(cpuBefore, cpuAfter), events),
    duplicates,
    duplicatesAbsorbedByLedger: absorbed,
    duplicatesPerSecond: Math.round(dupRate),
    bridgePeakRssMiB: Math.round(peak),
  };
  return result;
}

/** The stack's own processes (temporal, kafka..., postgres, codec) by name, for CPU figures. */
export function stackPidsOf(stack: RunningStack): Record<string, number> {
  return Object.fromEntries(
    Object.entries(stack.state.pids).filter((e): e is [string, number] => e[1] !== undefined),
  );
}

/** `bridge 1.2, temporal 3.4, ..., total 6.1`: CPU ms per start by process. */
export function formatCpu(cpu: Record<string, number>): string {
  return Object.entries(cpu)
    .map(([name, ms]) => `${name} ${ms}`)
    .join(', ');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string' },
      concurrency: { type: 'string' },
      duplicates: { type: 'string' },
      profile: { type: 'boolean' },
      ...TOPOLOGY_OPTIONS,
    },
  });
  const topology = applyTopologyOptions(values);
  const events = Number(values.events ?? 3000);
  const concurrency = Number(values.concurrency ?? 32);
  const duplicates = Number(values.duplicates ?? 20000);

  buildProduction(); // the bridge runs compiled, as in production
  const stack = await startPreparedStack();
  const config = loadConfig();
  // The bridge's own client (connectClient: its data converter encrypts payloads), so the raw
  // loop sends byte for byte what the bridge sends and the ratio is the bridge's own cost.
  const client = await connectClient(config);
  const pool = createPool(config.database);
  try {
    const result = await benchBridge(
      {
        events,
        concurrency,
        duplicates,
        profileDir: values.profile ? resolve(ROOT, 'artifacts', 'profiles') : undefined,
        stackPids: stackPidsOf(stack),
      },
      { config, client, pool, logs: stack.paths.logs },
    );
    const absorbed = result.duplicatesAbsorbedByLedger;
    mkdirSync(resolve(ROOT, 'artifacts'), { recursive: true });
    writeFileSync(
      resolve(ROOT, 'artifacts', 'bench-bridge.json'),
      `${JSON.stringify(result, null, 2)}\n`,
    );
    process.stdout.write(
      [
        '',
        `| measure | value |`,
        `|---|---|`,
        `| topology | ${describeTopology(topology)} |`,
        `| raw client.workflow.start (C=${concurrency}), before / after the bridge | ${result.rawStartsPerSecond} starts/s (${result.rawStartsPerSecondBeforeAfter.join(' / ')}) |`,
        `| bridge, pre-produced events (C=${concurrency}) | ${result.bridgeStartsPerSecond} starts/s |`,
        `| ratio bridge / raw (their mean) | ${result.ratio} |`,
        `| duplicate absorption (ledger) | ${result.duplicatesPerSecond} events/s (${absorbed}/${duplicates} by ledger) |`,
        `| ledger rows / the INSERTs that wrote them | ${result.ledgerRows} / ${result.ledgerInserts} |`,
        `| bridge peak RSS | ${result.bridgePeakRssMiB} MiB |`,
        `| CPU ms per start, raw loop | ${formatCpu(result.rawCpuMsPerStart)} |`,
        `| CPU ms per start, bridge | ${formatCpu(result.bridgeCpuMsPerStart)} |`,
        `| load average at the end | ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' / ')} |`,
        '',
      ].join('\n'),
    );
  } finally {
    await pool.end();
    await client.connection.close();
    await stack.stop();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
