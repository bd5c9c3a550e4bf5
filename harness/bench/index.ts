/**
 * `npm run bench`: one table of onceflow's performance, printed and written to
 * artifacts/bench.json. Starts (and afterwards stops) the embedded stack itself.
 *
 *   npm run bench                        # 5-minute sustained phase, as published
 *   npm run bench -- --duration 30s      # quick check
 *   options: --warmup 20s --latency-duration 60s --inflight 200
 *            --events 3000 --concurrency 32 --duplicates 20000   (bridge part, harness/bench/bridge.ts)
 *            --drain-orders 2000 --drain-payouts 50 --floor-workflows 2000 --profile (drain part)
 *            --variants product,no-versioning,tracing,...   the drain's variants (drain-variants.ts)
 *            --ladder every|claim,publish,...                the floor's rungs (floor-ladder.ts)
 *            --prefill 5000000                      rows in each growing table before each drain
 *            --only drain                                          (skip the other phases)
 *            --only fairness --orders 5000 --backfill 2000 --mail-limit 10 --baseline 60s
 *                                                                  (bursts: harness/bench/fairness.ts)
 *            --temporal dev|server --kafka-brokers 1|3             (the stack's topology)
 *
 * Every figure is measured in this run; nothing is estimated or carried over.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startPreparedStack } from '../setup/dev-stack';
import { loadConfig } from '../../src/config';
import { createPool } from '../../src/db/pool';
import { connectClient } from '../../src/temporal/connection';
import { createKafka } from '../../src/kafka/kafka-client';
import { parseDuration } from '../../src/util/duration';
import { buildProduction } from '../pipeline/production';
import { benchBridge, stackPidsOf } from './bridge';
import { benchEndToEnd } from './e2e';
import { benchDrain, type DrainResult } from './drain';
import { formatDrain } from './drain-table';
import { parseVariants } from './drain-variants';
import { parseLadder } from './floor-ladder';
import { applyTopologyOptions, describeTopology, TOPOLOGY_OPTIONS } from './topology-option';
import { benchFairness, formatFairness } from './fairness';
import { restartTemporal } from '../stack/restart';
import { DYNAMIC_CONFIG_SETTING } from '../stack/temporal-dynamic-config';

const ROOT = resolve(__dirname, '../..');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      'latency-duration': { type: 'string' },
      inflight: { type: 'string' },
      events: { type: 'string' },
      concurrency: { type: 'string' },
      duplicates: { type: 'string' },
      'drain-orders': { type: 'string' },
      'drain-payouts': { type: 'string' },
      'floor-workflows': { type: 'string' },
      profile: { type: 'boolean' },
      variants: { type: 'string' },
      ladder: { type: 'string' },
      prefill: { type: 'string' },
      only: { type: 'string' },
      orders: { type: 'string' },
      backfill: { type: 'string' },
      'mail-limit': { type: 'string' },
      baseline: { type: 'string' },
      ...TOPOLOGY_OPTIONS,
    },
  });
  const topology = applyTopologyOptions(values);
  if (values.only !== undefined && values.only !== 'drain' && values.only !== 'fairness')
    throw new Error(`--only ${values.only}: the phases that run alone are "drain" and "fairness"`);
  if (values.only === 'fairness') return runFairness(values, topology);
  const drainOrders = Number(values['drain-orders'] ?? 2000);
  if (!Number.isInteger(drainOrders) || drainOrders <= 0)
    throw new Error(`--drain-orders must be a positive integer, got ${values['drain-orders']}`);
  const prefill = Number(values.prefill ?? 0);
  if (!Number.isInteger(prefill) || prefill < 0)
    throw new Error(`--prefill must be a whole number of rows, got ${values.prefill}`);
  const variants = parseVariants(values.variants);
  const ladder = parseLadder(values.ladder);
  const durationMs = parseDuration(values.duration ?? '5m', '--duration');
  // Warm-up and latency phase scale with short runs so a 30 s check stays short.
  const warmupMs = parseDuration(
    values.warmup ?? `${Math.min(20, durationMs / 3000)}s`,
    '--warmup',
  );
  const latencyMs = parseDuration(
    values['latency-duration'] ?? `${Math.min(60, durationMs / 1000)}s`,
    '--latency-duration',
  );
  const concurrency = Number(values.concurrency ?? 32);

  // Worker and bridge run compiled, as in production (harness/pipeline/production.ts).
  buildProduction();
  const stack = await startPreparedStack();
  const config = loadConfig();
  const client = await connectClient(config);
  const pool = createPool(config.database);
  const kafka = createKafka(config.kafka, 'bench');
  try {
    const drain: DrainResult = await benchDrain(
      {
        orders: drainOrders,
        variants,
        prefill,
        ladder,
        payouts: Number(values['drain-payouts'] ?? 50),
        concurrency,
        floorWorkflows: Number(values['floor-workflows'] ?? drainOrders),
        profileDir: values.profile ? resolve(ROOT, 'artifacts', 'profiles') : undefined,
        stackPids: stackPidsOf(stack),
      },
      { config, client, kafka, env: stack.state.env, logs: stack.paths.logs },
    );
    process.stdout.write(`\nstack: ${describeTopology(topology)}\n${formatDrain(drain)}\n`);
    mkdirSync(resolve(ROOT, 'artifacts'), { recursive: true });
    writeFileSync(
      resolve(ROOT, 'artifacts', 'bench-drain.json'),
      `${JSON.stringify({ topology, ...drain }, null, 2)}\n`,
    );
    if (values.only === 'drain') return;
    const bridge = await benchBridge(
      {
        events: Number(values.events ?? 3000),
        concurrency,
        duplicates: Number(values.duplicates ?? 20000),
        stackPids: stackPidsOf(stack),
      },
      { config, client, pool, logs: stack.paths.logs },
    );
    const e2e = await benchEndToEnd(
      { durationMs, warmupMs, latencyMs, inflight: Number(values.inflight ?? 200) },
      { config, client, kafka, env: stack.state.env, logs: stack.paths.logs },
    );
    const machine = {
      platform: `${process.platform} ${process.arch}`,
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
      node: process.version,
    };
    const noise =
      'One run on one machine, with Temporal, Kafka, PostgreSQL, the providers, the worker, ' +
      'the bridge and this producer sharing its cores: repeat runs vary, so read ratios and ' +
      'orders of magnitude, not the last digit.';
    const result = {
      ...{ at: new Date().toISOString(), machine, topology, noise },
      ...{ drain, bridge, endToEnd: e2e },
    };
    mkdirSync(resolve(ROOT, 'artifacts'), { recursive: true });
    writeFileSync(resolve(ROOT, 'artifacts', 'bench.json'), `${JSON.stringify(result, null, 2)}\n`);

    const l = e2e.latencyMs;
    process.stdout.write(
      [
        '',
        `machine: ${machine.platform}, ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, node ${machine.node}`,
        `stack: ${describeTopology(topology)}`,
        '',
        '| measure | value |',
        '|---|---|',
        `| raw client.workflow.start (C=${concurrency}) | ${bridge.rawStartsPerSecond} starts/s |`,
        `| bridge, warm, a backlog of events (C=${concurrency}) | ${bridge.bridgeStartsPerSecond} starts/s |`,
        `| ratio bridge / raw | ${bridge.ratio} |`,
        `| duplicate absorption (ledger) | ${bridge.duplicatesPerSecond} events/s (${bridge.duplicatesAbsorbedByLedger}/${bridge.duplicates} by ledger) |`,
        `| end-to-end sustained, ${e2e.sustainedWindowSeconds} s | ${e2e.sustainedOrdersPerSecond} orders/s completed (${e2e.sustainedCompleted} orders) |`,
        `| latency produced → completed at ${e2e.latencyLoadOrdersPerSecond} orders/s (${e2e.latencyOrders} orders) | p50 ${l.p50} ms, p95 ${l.p95} ms, p99 ${l.p99} ms (max ${l.max} ms) |`,
        `| bridge peak RSS (VmHWM), bridge bench / end-to-end | ${bridge.bridgePeakRssMiB} MiB / ${e2e.bridgePeakRssMiB} MiB |`,
        `| worker peak RSS (VmHWM), end-to-end | ${e2e.workerPeakRssMiB} MiB |`,
        '',
        `note: ${noise}`,
        'written to artifacts/bench.json',
        '',
      ].join('\n'),
    );
  } finally {
    await pool.end();
    await client.connection.close();
    await stack.stop();
  }
}

/** A positive whole number of an option, or its default. */
function countOption(values: Record<string, unknown>, name: string, fallback: number): number {
  const raw = values[name];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n <= 0)
    throw new Error(`--${name} must be a positive integer, got ${String(raw)}`);
  return n;
}

/** `--only fairness`: the burst scenarios alone, on a stack of their own (harness/bench/fairness.ts). */
async function runFairness(
  values: Record<string, unknown>,
  topology: ReturnType<typeof applyTopologyOptions>,
): Promise<void> {
  if (topology.temporal !== 'dev')
    throw new Error(
      '--only fairness turns fairness off by restarting the dev server: run it with --temporal dev',
    );
  buildProduction();
  const stack = await startPreparedStack();
  const config = loadConfig();
  const client = await connectClient(config);
  const kafka = createKafka(config.kafka, 'bench');
  // Off: the stack's own dynamic config plus fairness off; on: as it was.
  const dynamic = process.env[DYNAMIC_CONFIG_SETTING];
  const setFairness = async (on: boolean) => {
    const off = [dynamic, 'matching.enableFairness=false'].filter(Boolean).join(',');
    if (on && dynamic === undefined) delete process.env[DYNAMIC_CONFIG_SETTING];
    else process.env[DYNAMIC_CONFIG_SETTING] = on ? dynamic : off;
    await restartTemporal(stack);
  };
  try {
    const result = await benchFairness(
      {
        orders: countOption(values, 'orders', 5000),
        backfill: countOption(values, 'backfill', 2000),
        mailLimit: countOption(values, 'mail-limit', 10),
        baselineSeconds: parseDuration(String(values.baseline ?? '60s'), '--baseline') / 1000,
      },
      { config, client, kafka, env: stack.state.env, logs: stack.paths.logs },
      setFairness,
    );
    const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}`;
    process.stdout.write(
      `\nmachine: ${machine}\nstack: ${describeTopology(topology)}\n${formatFairness(result)}`,
    );
    mkdirSync(resolve(ROOT, 'artifacts'), { recursive: true });
    writeFileSync(
      resolve(ROOT, 'artifacts', 'bench-fairness.json'),
      `${JSON.stringify({ at: new Date().toISOString(), machine, topology, ...result }, null, 2)}\n`,
    );
  } finally {
    await client.connection.close();
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
