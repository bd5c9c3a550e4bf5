import { join, resolve } from 'node:path';
import pino from 'pino';
import { Fleet } from '../chaos/fleet';
import { loadConfig } from '../../src/config';
import { createPool } from '../../src/db/pool';
import { migrate } from '../../src/db/migrate';
import { countRunWorkflows, scrapeCounter } from '../pipeline/observe';
import { setStock } from '../../src/domains/orders/inventory/stock-store';
import { createKafka } from '../../src/kafka/kafka-client';
import { buildRouteTable } from '../../src/domains';
import { runReconcile } from '../../src/reconcile/reconcile';
import { pickPort } from '../stack/ports';
import { waitFor } from '../../src/util/wait';
import { connectClient } from '../../src/temporal/connection';
import { FUZZ_EVENT_TYPE, generateFuzzStream } from './generate';
import { judgeRun, type Judgement } from './judge';
import {
  readBridgeTrouble,
  readDlqFacts,
  readGroupOffsets,
  readLedgerCoordinates,
  type PartitionOffsets,
} from './observe';
import { createFuzzTopic, produceFuzzStream } from './produce';
import { findTranslationThrows } from './translate-check';
import { dlqTopicOf } from '../../src/events/dlq-topic';

const ROOT = resolve(__dirname, '..', '..');

/** Options of runFuzz. */
export interface FuzzOptions {
  messages: number;
  seed: number;
  /** Partitions of the fuzz topic. Default: 3. */
  partitions?: number;
  /** Stop waiting when no committed offset advanced for this long. Default: 30 s. */
  stallMs?: number;
  /** Stop waiting for the bridge after this long in all. Default: 60 s + 20 ms per message. */
  deadlineMs?: number;
  /** How long the started workflows get to finish. Default: 60 s + 150 ms per start. */
  workflowsTimeoutMs?: number;
  /** Message kinds not to generate (kinds.ts names; 'huge-value' too). Default: none. */
  skipKinds?: string[];
  /** Stack addresses (TEMPORAL_ADDRESS, KAFKA_BROKERS, DATABASE_URL...). Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where report.json and the components' logs go. Default: artifacts/fuzz-<run>. */
  artifactsDir?: string;
  /** Progress lines. Default: none. */
  say?: (line: string) => void;
}

export interface FuzzReport {
  run: string;
  seed: number;
  messages: number;
  topic: string;
  /** Produced by kind. */
  kinds: Record<string, number>;
  timings: { produceMs: number; drainMs: number; totalMs: number };
  /** How waiting ended: every partition committed, no progress for stallMs, or the deadline. */
  drained: 'complete' | 'stalled' | 'deadline';
  offsets: PartitionOffsets[];
  metrics: Record<string, number>;
  judgement: Omit<Judgement, 'outcomes'>;
  reconcile: { clean: boolean; discrepancies: number; error?: string; sample: string[] };
  unexpectedExits: string[];
  /** The bridge (or another component) did not exit within 20 s of SIGTERM; it was killed. */
  shutdownHung: boolean;
  ok: boolean;
  artifactsDir: string;
  logs: string;
}

/** Graceful stop of every component; SIGKILL for those still running after `ms`. */
async function stopWithin(fleet: Fleet, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = await Promise.race([
    fleet.stopAll().then(() => true),
    new Promise<boolean>((done) => (timer = setTimeout(() => done(false), ms))),
  ]);
  clearTimeout(timer);
  if (!graceful) for (const name of ['bridge', 'worker', 'providers']) await fleet.kill(name);
  return graceful;
}

/**
 * One fuzz run: hostile messages (generate.ts) through the real bridge, a worker and the
 * sandbox providers, each its own process, on the stack named by `env`, with a topic, group,
 * task queue and schemas of its own. Waits until every partition is committed to its end (or
 * progress stalls, or the deadline passes), then accounts for every message and reconciles.
 */
/**
 * How long reading the source topic or the DLQ back may take: a 100,000-message run's DLQ
 * holds about 90,000 records, some of them megabytes, which a busy 2-core machine does not read
 * in a fixed minute.
 */
function readTimeoutMs(messages: number): number {
  return 60_000 + 5 * messages;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const say = options.say ?? (() => undefined);
  const started = Date.now();
  const run = `fz${started.toString(36)}s${options.seed}`;
  const prefix = `${run}-`;
  const partitions = options.partitions ?? 3;
  const artifactsDir = resolve(options.artifactsDir ?? join(ROOT, 'artifacts', `fuzz-${run}`));
  const logs = join(artifactsDir, 'logs');
  const taken = new Set<number>();
  const providersUrl = `http://127.0.0.1:${await pickPort(4110, taken)}`;
  const metricsUrl = `http://127.0.0.1:${await pickPort(9564, taken)}/metrics`;
  const env: NodeJS.ProcessEnv = {
    ...(options.env ?? process.env),
    KAFKA_TOPICS: `${run}_hostile`,
    KAFKA_GROUP_ID: `${run}_bridge`,
    TEMPORAL_TASK_QUEUE: `${run}_tq`,
    DATABASE_SCHEMA: run,
    PROVIDERS_DB_SCHEMA: `${run}_sandbox`,
    PROVIDERS_URL: providersUrl,
    BRIDGE_METRICS_PORT: new URL(metricsUrl).port,
    // A route that takes any JSON object as data, so deeply nested data reaches z.json().
    BRIDGE_EXTRA_ROUTES: JSON.stringify({ [FUZZ_EVENT_TYPE]: 'fuzzNote' }),
    // The stack's registry decodes: random bytes that open with the wire format's zero byte,
    // and the foreign-registry kind's values, name schema IDs it does not know, which the
    // bridge dead-letters schema-unknown once they have been unknown this long (its partition
    // paused meanwhile, the others going on).
    BRIDGE_SCHEMA_UNKNOWN_AFTER: '2s',
  };
  const config = loadConfig(env);
  const topic = config.kafka.topics[0]!;
  const schema = config.database.schema;
  // KafkaJS's own complaints (e.g. reconcile's reader failing on a message) go to a file.
  const kafkaLog = pino(
    { level: 'warn' },
    pino.destination({ dest: join(logs, 'fuzz-kafkajs.log'), mkdir: true, sync: true }),
  );
  const kafka = createKafka(config.kafka, 'fuzz', kafkaLog);
  const pool = createPool(config.database, { schema });
  const client = await connectClient(config);
  const fleet = new Fleet(
    {
      providers: { entry: 'harness/sandbox/main.ts', readyUrl: `${providersUrl}/admin/faults` },
      worker: { entry: 'src/worker/main.ts' },
      bridge: { entry: 'src/kafka-bridge/main.ts', readyUrl: metricsUrl },
    },
    env,
    logs,
  );
  try {
    await migrate(pool, { schema });
    const skus = [1, 2, 3].map((i) => `${run}-SKU-${i}`);
    for (const sku of skus) await setStock(pool, sku, 1_000_000);
    await createFuzzTopic(kafka, topic, partitions);
    const stream = generateFuzzStream({
      skipKinds: options.skipKinds,
      messages: options.messages,
      seed: options.seed,
      prefix,
      partitions,
      skus,
    });
    const routes = buildRouteTable(config.bridge.extraRoutes);
    const translateOptions = { maxBytes: config.bridge.maxMessageBytes };
    const translationThrows = findTranslationThrows(stream.messages, routes, translateOptions);
    say(`fuzz ${run}: ${options.messages} messages, seed ${options.seed}, topic ${topic}`);
    await fleet.start('providers');
    await fleet.start('worker');
    await fleet.start('bridge');

    const produceStart = Date.now();
    const placements = await produceFuzzStream(kafka, topic, stream.messages);
    const produceMs = Date.now() - produceStart;
    say(`produced in ${(produceMs / 1000).toFixed(1)} s; waiting for the bridge`);

    const drainStart = Date.now();
    const deadlineMs = options.deadlineMs ?? 60_000 + 20 * options.messages;
    const stallMs = options.stallMs ?? 30_000;
    let offsets = await readGroupOffsets(kafka, topic, config.kafka.groupId);
    let drained: FuzzReport['drained'] = 'deadline';
    let lastProgress = Date.now();
    let lastSum = -Infinity;
    while (Date.now() - drainStart < deadlineMs) {
      offsets = await readGroupOffsets(kafka, topic, config.kafka.groupId);
      if (offsets.every((o) => o.committed === o.end)) {
        drained = 'complete';
        break;
      }
      const sum = offsets.reduce((s, o) => s + Math.max(o.committed, 0), 0);
      if (sum > lastSum) [lastSum, lastProgress] = [sum, Date.now()];
      else if (Date.now() - lastProgress > stallMs) {
        drained = 'stalled';
        break;
      }
      say(`  committed ${sum} of ${offsets.reduce((s, o) => s + o.end, 0)}`);
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const drainMs = Date.now() - drainStart;
    say(`drain ${drained} after ${(drainMs / 1000).toFixed(1)} s`);

    const metric = (name: string) => scrapeCounter(metricsUrl, name).catch(() => NaN);
    const metrics: Record<string, number> = {
      consumed: await metric('onceflow_bridge_consumed_total'),
      started: await metric('onceflow_bridge_started_total'),
      duplicates: await metric('onceflow_bridge_duplicates_total'),
      deadLettered: await metric('onceflow_bridge_dlq_total'),
      consumerRestarts: await metric('onceflow_bridge_consumer_restarts_total'),
      transientRetries: await metric('onceflow_bridge_transient_retries_total'),
    };

    // The started orders' workflows finish before reconcile judges their effects; one that
    // does not (parked after a failed activity, say) is a finding of its own.
    const running = async () => (await countRunWorkflows(client, prefix)).running;
    await waitFor(async () => (await running()) === 0, {
      timeoutMs: options.workflowsTimeoutMs ?? 60_000 + 150 * (metrics.started || 0),
      intervalMs: 1_000,
      what: 'the run’s workflows to finish',
    }).catch(() => undefined);
    const workflowsRunning = await running();
    if (workflowsRunning > 0) say(`${workflowsRunning} workflows still running`);

    const reconcile: FuzzReport['reconcile'] = { clean: false, discrepancies: 0, sample: [] };
    try {
      const report = await runReconcile(
        { kafka, client, pool },
        {
          topics: [topic],
          prefix,
          schema,
          providersToken: config.providers.adminToken,
          providersUrl,
          routes,
          translateOptions,
          readTimeoutMs: readTimeoutMs(options.messages),
        },
      );
      reconcile.clean = report.clean;
      reconcile.discrepancies = report.discrepancies.length;
      reconcile.sample = report.discrepancies
        .slice(0, 20)
        .map((d) => `${d.class} ${d.subject}: ${d.detail}`);
    } catch (err) {
      reconcile.error = `${(err as Error).name}: ${(err as Error).message}`.slice(0, 500);
    }

    const shutdownHung = !(await stopWithin(fleet, 20_000));
    const judgement = judgeRun({
      topic,
      messages: stream.messages,
      placements,
      offsets,
      dlq: await readDlqFacts(kafka, dlqTopicOf(topic), readTimeoutMs(options.messages)),
      ledger: await readLedgerCoordinates(pool, schema, topic),
      trouble: readBridgeTrouble(join(logs, 'demo-bridge.log')),
      bridgeExits: fleet.unexpectedExits.length,
      consumerRestarts: Number.isNaN(metrics.consumerRestarts!) ? 0 : metrics.consumerRestarts!,
      reconcile,
      translationThrows,
      workflowsRunning,
    });
    return {
      run,
      seed: options.seed,
      messages: options.messages,
      topic,
      kinds: stream.countsByKind,
      timings: { produceMs, drainMs, totalMs: Date.now() - started },
      drained,
      offsets,
      metrics,
      judgement: {
        byKind: judgement.byKind,
        dlqByReason: judgement.dlqByReason,
        checks: judgement.checks,
        examples: judgement.examples,
        wedges: judgement.wedges,
      },
      reconcile,
      unexpectedExits: fleet.unexpectedExits,
      shutdownHung,
      ok: !shutdownHung && Object.values(judgement.checks).every((n) => n === 0),
      artifactsDir,
      logs,
    };
  } finally {
    await stopWithin(fleet, 20_000);
    await client.connection.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
  }
}
