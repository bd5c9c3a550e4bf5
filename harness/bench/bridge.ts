/**
 * `npm run bench:bridge`: the bridge's start rate against a tight start loop on the same
 * server, the duplicate absorption rate, and the bridge's peak RSS. Prints a table and writes
 * artifacts/bench-bridge.json. On one (noisy, 2-core) machine: read the rounds' median ratio,
 * not absolute numbers.
 *
 *   npm run bench:bridge -- --events 3000 --concurrency 32 --duplicates 20000 --rounds 5
 *                           --warmup 1000 [--pin-server] [--profile] [--temporal dev|server]
 *                           [--kafka-brokers 1|3]
 *
 * --warmup: starts each side makes unmeasured first (the raw loop once; each bridge process on
 * the head of its backlog), so both are measured warm; 0 measures the bridge from its spawn.
 *
 * --rounds: bridge runs, each between two raw runs (raw, bridge, raw, bridge, ..., raw); the
 * ratio is the median of each bridge run against the raw runs around it (rounds.ts).
 *
 * --pin-server puts the Temporal server on CPU 0 and everything else on the other CPUs
 * (pin-cores.ts): does the bridge keep up with a server whose core it does not take?
 *
 * --profile writes a V8 CPU profile of the first bridge run (--cpu-prof) to
 * artifacts/profiles/bench-bridge/, for where its time goes per message.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import pino from 'pino';
import type { Client } from '@temporalio/client';
import type { Kafka } from 'kafkajs';
import type { Pool } from 'pg';
import { startPreparedStack } from '../setup/dev-stack';
import { loadConfig, type Config } from '../../src/config';
import { createPool } from '../../src/db/pool';
import { createKafka } from '../../src/kafka/kafka-client';
import { connectClient } from '../../src/temporal/connection';
import { ensureTopics } from '../../src/kafka/topics';
import { startBridge } from '../../src/kafka-bridge/bridge';
import { DEFAULT_ROUTES } from '../../src/domains';
import { waitFor } from '../../src/util/wait';
import { buildProduction } from '../pipeline/production';
import { waitForQuietCpu } from './proc-cpu';
import { loadavg } from 'node:os';
import type { RunningStack } from '../stack/stack';
import { applyTopologyOptions, describeTopology, TOPOLOGY_OPTIONS } from './topology-option';
import { median, roundsOf } from './rounds';
import { pinServer } from './pin-cores';
import {
  committedAll,
  meanOf,
  PARTITIONS,
  rawStartRate,
  runBridgeOnce,
  tag,
  terminateAll,
} from './bridge-runs';

const ROOT = resolve(__dirname, '../..');

/** What every bench phase gets from harness/bench/index.ts: the stack's config, clients and logs folder. */
export interface BenchContext {
  config: Config;
  client: Client;
  kafka: Kafka;
  env: NodeJS.ProcessEnv;
  logs: string;
}

export interface BridgeBenchOptions {
  events: number;
  concurrency: number;
  duplicates: number;
  /**
   * Bridge runs, each between two runs of the raw loop; the ratio is the median of the
   * rounds' ratios (harness/bench/rounds.ts). Default: 1.
   */
  rounds?: number;
  /**
   * Starts each side makes before it is measured: the raw loop once in its process, the
   * bridge in each of its processes, on the head of its backlog (bridge-runs.ts). Both are
   * then measured warm, as a bridge that has run for a while. Default: 1000.
   */
  warmup?: number;
  /** Write a --cpu-prof profile of the bridge process into this folder. Default: none. */
  profileDir?: string;
  /** The stack's own service pids (stack.json), for CPU per start per process. Default: none. */
  stackPids?: Record<string, number>;
}

export type BridgeBenchResult = Awaited<ReturnType<typeof benchBridge>>;

/** Exported so `npm run bench` (harness/bench/index.ts) reuses the same measurements. */
export async function benchBridge(
  {
    events,
    concurrency,
    duplicates,
    rounds = 1,
    warmup = 1000,
    profileDir,
    stackPids = {},
  }: BridgeBenchOptions,
  { config, client, pool, logs }: { config: Config; client: Client; pool: Pool; logs: string },
) {
  const kafka = createKafka(config.kafka, 'bench');
  const raws: Array<Awaited<ReturnType<typeof rawStartRate>>> = [];
  const runs: Array<Awaited<ReturnType<typeof runBridgeOnce>>> = [];
  const rawRun = async () => {
    await waitForQuietCpu(stackPids);
    process.stderr.write(`raw start loop: ${events} starts at concurrency ${concurrency}\n`);
    raws.push(await rawStartRate(client, events, concurrency, stackPids, 41 + raws.length));
  };
  if (warmup > 0) {
    await waitForQuietCpu(stackPids);
    process.stderr.write(`raw start loop: warming up on ${warmup} starts\n`);
    await rawStartRate(client, warmup, concurrency, stackPids, 40);
  }
  // The server's rate drifts as its database grows and the machine's load moves, so each
  // bridge run is compared with the raw runs on either side of it, not with one taken first.
  await rawRun();
  for (let round = 0; round < Math.max(1, rounds); round++) {
    const run = await runBridgeOnce({
      events,
      warmup,
      concurrency,
      profileDir: round === 0 ? profileDir : undefined,
      stackPids,
      kafka,
      pool,
      logs,
    });
    runs.push(run);
    // Its workflows end before the next raw loop, as the raw loop's own do: every run starts
    // on a server with nothing of the bench's open.
    await terminateAll(client, await run.ledger.listWorkflowIds());
    await rawRun();
  }
  const bridgeRounds = roundsOf(
    raws.map((r) => Math.round(r.rate)),
    runs.map((r) => Math.round(r.rate)),
  );
  const last = runs.at(-1)!;
  const { schema, stream, taskQueue } = last;

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
        startConcurrency: concurrency,
        // No worker closes these runs: no open-run caps.
        openRuns: { total: 0, perTenant: 0, background: 0 },
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

  const result = {
    machine: `${process.platform} ${process.arch}, ${(await import('node:os')).cpus().length} cores`,
    events,
    concurrency,
    /** The mean of every raw run. */
    rawStartsPerSecond: Math.round(raws.reduce((s, r) => s + r.rate, 0) / raws.length),
    /** Each bridge run with the raw runs around it. */
    rounds: bridgeRounds,
    /**
     * Temporal's CPU ms per start in each run, in the rounds' order (raw, bridge, raw, ...):
     * whether a slow run was a slow server.
     */
    temporalCpuMsPerStart: raws.flatMap((r, i) => [
      r.cpuMsPerStart.temporal ?? NaN,
      ...(runs[i] ? [runs[i].cpuMsPerStart.temporal ?? NaN] : []),
    ]),
    /** The median of the bridge runs. */
    bridgeStartsPerSecond: Math.round(median(runs.map((r) => r.rate))),
    /** Ledger rows the last bridge run wrote, and the INSERT transactions that wrote them. */
    ledgerRows: last.rows,
    ledgerInserts: last.inserts,
    /** The median of the rounds' ratios. */
    ratio: Number(median(bridgeRounds.map((r) => r.ratio)).toFixed(2)),
    /** CPU ms per start of each process, mean of the raw runs (bench = the raw loop's client). */
    rawCpuMsPerStart: meanOf(raws.map((r) => r.cpuMsPerStart)),
    /** CPU ms per event of each process, mean of the bridge runs (bench = its producer and poller). */
    bridgeCpuMsPerStart: meanOf(runs.map((r) => r.cpuMsPerStart)),
    duplicates,
    duplicatesAbsorbedByLedger: absorbed,
    duplicatesPerSecond: Math.round(dupRate),
    bridgePeakRssMiB: Math.round(Math.max(...runs.map((r) => r.peakRssMiB))),
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
      rounds: { type: 'string' },
      warmup: { type: 'string' },
      'pin-server': { type: 'boolean' },
      profile: { type: 'boolean' },
      ...TOPOLOGY_OPTIONS,
    },
  });
  const topology = applyTopologyOptions(values);
  const events = Number(values.events ?? 3000);
  const concurrency = Number(values.concurrency ?? 32);
  const duplicates = Number(values.duplicates ?? 20000);
  const rounds = Number(values.rounds ?? 5);
  const warmup = Number(values.warmup ?? 1000);

  buildProduction(); // the bridge runs compiled, as in production
  const stack = await startPreparedStack();
  const stackPids = stackPidsOf(stack);
  const { temporal: serverPid, ...otherPids } = stackPids;
  const unpin =
    values['pin-server'] && serverPid !== undefined
      ? pinServer(serverPid, Object.values(otherPids))
      : undefined;
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
        rounds,
        warmup,
        profileDir: values.profile ? resolve(ROOT, 'artifacts', 'profiles') : undefined,
        stackPids,
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
        `| cores | ${unpin ? 'Temporal server on CPU 0, everything else (bridge, raw loop, Kafka, Postgres) on the rest' : 'shared by every process'} |`,
        `| raw client.workflow.start, warm (C=${concurrency}), mean of ${result.rounds.length + 1} runs | ${result.rawStartsPerSecond} starts/s |`,
        `| bridge, warm, a backlog of ${events} events (C=${concurrency}), median of ${result.rounds.length} runs | ${result.bridgeStartsPerSecond} starts/s |`,
        ...result.rounds.map((r, i) => {
          const t = result.temporalCpuMsPerStart.slice(2 * i, 2 * i + 3).join(' / ');
          return `| round ${i + 1}: raw / bridge / raw, ratio to the raw runs' mean (Temporal CPU ms per start) | ${r.rawBefore} / ${r.bridge} / ${r.rawAfter} starts/s, ${r.ratio} (${t}) |`;
        }),
        `| ratio bridge / raw, median of the rounds | ${result.ratio} |`,
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
    unpin?.();
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
