/**
 * `npm run bench:peers`: the same order workload on onceflow, plain Temporal + kafkajs, Restate
 * and DBOS, one after another in one run, on the same Kafka, Postgres and sandbox providers
 * (fault injection off), and one table with a row per system. Installs the peers (harness/bench/peers/package.json, pinned)
 * on first use. Starts the stack if none is running (and stops only what it started).
 *
 *   npm run bench:peers                          # 2-minute sustained window per system
 *   npm run bench:peers -- --duration 30s        # quick check
 *   options: --warmup 20s --latency-duration 60s --backlog 500 --duplicates 2000
 *            --concurrency 32 --partitions 6 --systems onceflow,plain-temporal,restate,dbos
 *            --temporal dev|server --kafka-brokers 1|3   (the stack's topology)
 *
 * Writes artifacts/bench-peers.json and artifacts/bench-peers.svg. Every figure is measured in
 * this run. Workload and phases: harness/bench/peers/workload.ts; systems: harness/bench/peers/systems.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../../src/config';
import { createPool } from '../../../src/db/pool';
import { buildProduction } from '../../pipeline/production';
import { migrate } from '../../../src/db/migrate';
import { setStock } from '../../../src/domains/orders/inventory/stock-store';
import { createKafka } from '../../../src/kafka/kafka-client';
import { ensureTopics } from '../../../src/kafka/topics';
import { startPreparedStack } from '../../setup/dev-stack';
import { pickPort } from '../../stack/ports';
import { waitFor } from '../../../src/util/wait';
import { parseDuration } from '../../../src/util/duration';
import { cpuSeconds } from '../proc-cpu';
import { cpuColumns, cpuRoots } from './cpu-table';
import { renderChart } from './chart';
import type { StackTopology } from '../../stack/topology';
import { applyTopologyOptions, describeTopology, TOPOLOGY_OPTIONS } from '../topology-option';
import { OrderFeed, STREAM_SHAPE } from './feed';
import { checkPeerInvariants, type InvariantReport } from './invariants';
import { readPeerLedger } from './ledger';
import {
  assertAlive,
  PEERS_DIR,
  ROOT,
  RssSampler,
  startNodeProcess,
  stopProcess,
  type SystemProcess,
} from './processes';
import {
  dbosSystem,
  onceflowSystem,
  peerVersion,
  plainTemporalSystem,
  restateSystem,
  type PeerSystem,
  type SystemContext,
} from './systems';
import { preProduce, runWorkload, type WorkloadOptions, type WorkloadResult } from './workload';

const SYSTEMS = {
  onceflow: onceflowSystem,
  'plain-temporal': plainTemporalSystem,
  restate: restateSystem,
  dbos: dbosSystem,
} as const;
type SystemName = keyof typeof SYSTEMS;
const SKUS = ['SKU-1', 'SKU-2', 'SKU-3', 'SKU-4', 'SKU-5'];

interface SystemResult extends WorkloadResult {
  system: SystemName;
  version: string;
  settings: string;
  /** Peak RSS (MiB) per process of the system, and the providers it shared with the others. */
  peakRssMiB: Record<string, number>;
  ownPeakRssMiB: number;
  /** 1-minute load average when the system started and when it finished: how busy the box was. */
  loadAverage: { start: number; end: number };
  stream: OrderFeed['counts'];
  invariants: Omit<InvariantReport, 'violations'> & {
    violations: string[];
    violationCount: number;
  };
}

const log = (m: string) => process.stderr.write(`bench:peers ${m}\n`);

/**
 * `npm ci` of harness/bench/peers when a pinned package is missing or installed at another version
 * (first use, fresh clone, or a checkout from before a pin changed: DBOS 5.x → 4.x).
 */
function ensurePeersInstalled(): void {
  const pinned = (
    JSON.parse(readFileSync(join(PEERS_DIR, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    }
  ).dependencies;
  const installed = (p: string) =>
    existsSync(join(PEERS_DIR, 'node_modules', p, 'package.json')) && peerVersion(p) === pinned[p];
  if (Object.keys(pinned).every(installed)) return;
  log('installing the peers (npm ci --prefix harness/bench/peers)');
  const r = spawnSync('npm', ['ci', '--prefix', PEERS_DIR, '--no-audit', '--no-fund'], {
    stdio: ['ignore', 2, 2],
  });
  if (r.status !== 0) throw new Error(`npm ci --prefix harness/bench/peers failed (${r.status})`);
}

/** Version of a package of the product's own install (node_modules at the root). */
function rootVersion(name: string): string {
  const file = join(ROOT, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function versionOf(name: SystemName, stackVersions: Record<string, string>): string {
  if (name === 'restate')
    return `restate-server ${peerVersion('@restatedev/restate-server')}, sdk ${peerVersion('@restatedev/restate-sdk')}`;
  if (name === 'dbos')
    return (
      `dbos-sdk ${peerVersion('@dbos-inc/dbos-sdk')}, ` +
      `kafkajs-receive ${peerVersion('@dbos-inc/kafkajs-receive')}, ` +
      `postgres-datasource ${peerVersion('@dbos-inc/postgres-datasource')}`
    );
  if (name === 'plain-temporal')
    return `@temporalio/worker ${rootVersion('@temporalio/worker')}, kafkajs ${rootVersion('kafkajs')}, Temporal server ${stackVersions.temporalServer ?? '?'}`;
  const which = stackVersions.temporalCli ? "the stack's dev server" : 'the Temporal server';
  return `this checkout, Temporal server ${stackVersions.temporalServer ?? '?'} (${which})`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      'latency-duration': { type: 'string' },
      backlog: { type: 'string' },
      duplicates: { type: 'string' },
      concurrency: { type: 'string' },
      partitions: { type: 'string' },
      systems: { type: 'string' },
      ...TOPOLOGY_OPTIONS,
    },
  });
  const topology = applyTopologyOptions(values);
  const durationMs = parseDuration(values.duration ?? '2m', '--duration');
  const options = {
    durationMs,
    warmupMs: parseDuration(values.warmup ?? `${Math.min(20, durationMs / 6000)}s`, '--warmup'),
    latencyMs: parseDuration(
      values['latency-duration'] ?? `${Math.min(60, durationMs / 2000)}s`,
      '--latency-duration',
    ),
    backlog: Number(values.backlog ?? 500),
    duplicates: Number(values.duplicates ?? 2000),
    partitions: Number(values.partitions ?? 6),
  };
  const concurrency = Number(values.concurrency ?? 32);
  const names = (values.systems ?? Object.keys(SYSTEMS).join(',')).split(',') as SystemName[];
  for (const n of names) if (!(n in SYSTEMS)) throw new Error(`unknown system ${n}`);

  // Restate and DBOS are pinned in harness/bench/peers; onceflow and plain Temporal need nothing more.
  if (names.some((n) => n === 'restate' || n === 'dbos')) ensurePeersInstalled();
  buildProduction(); // onceflow's worker and bridge run compiled, as in production
  const stack = await startPreparedStack();
  const config = loadConfig();
  const pool = createPool(config.database);
  const kafka = createKafka(config.kafka, 'bench-peers');
  const producer = kafka.producer();
  await producer.connect();
  const admin = kafka.admin();
  await admin.connect();
  const seed = Date.now() % 1_000_000_000;
  const runTag = Date.now().toString(36);
  const ports = new Set<number>(stack.state.ports);
  const results: SystemResult[] = [];
  const failures: Array<{ system: SystemName; error: string }> = [];
  try {
    for (const name of names) {
      const run = `peers_${name.replace(/-/g, '_')}_${runTag}`;
      const inventorySchema = `${run}_inv`;
      const providersSchema = `${run}_prov`;
      const topic = `${run}_orders`;
      const invPool = createPool(config.database, { schema: inventorySchema });
      await migrate(invPool, { schema: inventorySchema });
      for (const sku of SKUS) await setStock(invPool, sku, 1_000_000_000);
      await invPool.end();
      await ensureTopics(kafka, { topics: [topic], partitions: options.partitions });

      const providersUrl = `http://127.0.0.1:${await pickPort(4210, ports)}`;
      const providers = startNodeProcess(`${name}-providers`, 'harness/sandbox/main.ts', {
        env: {
          ...stack.state.env,
          PROVIDERS_URL: providersUrl,
          PROVIDERS_DB_SCHEMA: providersSchema,
          DATABASE_SCHEMA: inventorySchema,
          LOG_LEVEL: 'warn',
        },
        logs: stack.paths.logs,
      });
      const ctx: SystemContext = {
        run,
        topic,
        groupId: `${run}_group`,
        inventorySchema,
        providersUrl,
        stackEnv: { ...stack.state.env },
        logs: stack.paths.logs,
        concurrency,
        temporalPid: stack.state.pids.temporal,
        temporal: topology.temporal,
        ports,
      };
      const system: PeerSystem = SYSTEMS[name](ctx);
      const feed = new OrderFeed(seed, `${name}-${runTag}`);
      const all = (): SystemProcess[] => [...system.processes, providers];
      const sampler = new RssSampler(all);
      try {
        await waitFor(
          async () => (
            assertAlive([providers]),
            // Any answer below 500 means it listens (the admin API itself wants a token).
            ((await fetch(`${providersUrl}/admin/faults`).catch(() => undefined))?.status ?? 500) <
              500
          ),
          { timeoutMs: 60_000, what: 'the sandbox providers' },
        );
        log(`${name}: ${options.backlog} orders pre-produced on ${topic}; starting`);
        await preProduce(feed, producer, topic, options.backlog);
        const loadAtStart = loadavg()[0]!;
        await system.start();
        sampler.start();
        const workload = await runWorkload(options, {
          feed,
          producer,
          admin,
          pool,
          target: {
            topic,
            groupId: ctx.groupId,
            providersSchema,
            alive: () => assertAlive(all()),
            log: (m) => log(`${name}: ${m}`),
            cpuSeconds: () => cpuSeconds(cpuRoots(all(), stack.state.pids)),
          },
        });
        const peak = sampler.stop();
        const ownPeak = system.processes
          .filter((p) => !p.shared)
          .reduce((s, p) => s + (peak[p.name] ?? 0), 0);
        const ledger = await readPeerLedger(pool, {
          providers: providersSchema,
          inventory: inventorySchema,
        });
        const report = checkPeerInvariants(feed.totals, ledger);
        log(`${name}: invariants ${report.ok ? 'hold' : `VIOLATED (${report.violations.length})`}`);
        results.push({
          system: name,
          version: versionOf(name, stack.state.versions),
          settings: system.settings,
          ...workload,
          peakRssMiB: peak,
          ownPeakRssMiB: ownPeak,
          loadAverage: { start: loadAtStart, end: loadavg()[0]! },
          stream: { ...feed.counts },
          invariants: {
            ...report,
            violations: report.violations.slice(0, 20),
            violationCount: report.violations.length,
          },
        });
      } catch (err) {
        // One system failing must not lose the others' rows: it gets a row saying why.
        const error = (err as Error).message ?? String(err);
        log(`${name}: FAILED: ${error}`);
        failures.push({ system: name, error });
      } finally {
        sampler.stop();
        await system.stop();
        await stopProcess(providers);
      }
    }
  } finally {
    await producer.disconnect();
    await admin.disconnect();
    await pool.end();
    await stack.stop();
  }
  report(results, failures, options, concurrency, topology);
}

function report(
  results: SystemResult[],
  failures: Array<{ system: SystemName; error: string }>,
  options: WorkloadOptions,
  concurrency: number,
  topology: StackTopology,
): void {
  const machine = {
    platform: `${process.platform} ${process.arch}`,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
    node: process.version,
  };
  const noise =
    'One run on one machine; every system shares its cores with Kafka, PostgreSQL, the ' +
    'providers and this harness: repeat runs vary, so read ratios, not the last digit.';
  const out = {
    at: new Date().toISOString(),
    machine,
    topology,
    noise,
    options: { ...options, concurrency, stream: STREAM_SHAPE },
    failures,
    results: results.map(({ latency, ...r }) => ({
      ...r,
      latency: { ...latency, samples: undefined },
    })),
  };
  const dir = resolve(ROOT, 'artifacts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'bench-peers.json'), `${JSON.stringify(out, null, 2)}\n`);
  writeFileSync(
    join(dir, 'bench-peers.svg'),
    renderChart(
      results.map((r) => ({
        name: r.system,
        latencySamples: r.latency.samples,
        ordersPerSecond: r.sustained.ordersPerSecond,
        duplicatesPerSecond: r.duplicates.perSecond,
      })),
      `${results.map((r) => r.system).join(' vs ')}, ${machine.cores} cores, ${new Date().toISOString().slice(0, 16)}Z`,
    ),
  );
  const rss = (r: SystemResult) =>
    Object.entries(r.peakRssMiB)
      .map(([n, v]) => `${n} ${v}`)
      .join(', ');
  const inv = (r: SystemResult) =>
    r.invariants.ok
      ? `ok: ${r.invariants.orders} orders, ${r.invariants.charges} charges, ${r.invariants.emails} emails, ${r.invariants.reservations} reservations`
      : `FAILED (${r.invariants.violationCount}): ${r.invariants.violations.slice(0, 3).join('; ')}`;
  const lines = [
    '',
    `machine: ${machine.platform}, ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, node ${machine.node}`,
    `stack: ${describeTopology(topology)}`,
    `stream: ${STREAM_SHAPE.duplicateRate * 100} % duplicate deliveries, ${STREAM_SHAPE.resendRate * 100} % fresh-ID resends; ` +
      `${options.partitions} partitions; backlog ${options.backlog}; window ${options.durationMs / 1000} s after ${options.warmupMs / 1000} s warm-up; ` +
      `latency ${options.latencyMs / 1000} s; ${options.duplicates} duplicate re-deliveries`,
    '',
    '| system | sustained orders/s | p50 / p95 / p99 ms (at orders/s) | duplicates absorbed/s | peak RSS MiB (own total; per process) | invariants |',
    '|---|---|---|---|---|---|',
    ...results.map(
      (r) =>
        `| ${r.system} | ${r.sustained.ordersPerSecond} | ${r.latency.p50} / ${r.latency.p95} / ${r.latency.p99} (${r.latency.loadOrdersPerSecond}) | ` +
        `${r.duplicates.perSecond} | ${r.ownPeakRssMiB}; ${rss(r)} | ${inv(r)} |`,
    ),
    ...failures.map((f) => `| ${f.system} | failed: ${f.error} | | | | |`),
    '',
    "CPU ms per order in the sustained window (from /proc; shared services are the stack's, used by every system in turn):",
    '',
    '| system | own processes | Kafka | PostgreSQL | Temporal | providers | total |',
    '|---|---|---|---|---|---|---|',
    ...results.map((r) => `| ${r.system} | ${cpuColumns(r.sustained.cpuMsPerOrder).join(' | ')} |`),
    '',
    'settings:',
    ...results.map(
      (r) =>
        `- ${r.system} (${r.version}): ${r.settings}; load average ${r.loadAverage.start.toFixed(1)} → ${r.loadAverage.end.toFixed(1)}`,
    ),
    '',
    `note: ${noise}`,
    'written to artifacts/bench-peers.json and artifacts/bench-peers.svg',
    '',
  ];
  process.stdout.write(lines.join('\n'));
  if (results.some((r) => !r.invariants.ok)) process.exitCode = 2;
  if (failures.length > 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
