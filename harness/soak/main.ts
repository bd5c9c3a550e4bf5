/**
 * `npm run soak -- --duration 60m`: the demo's pipeline (providers, one worker, the bridge:
 * the chaos run's fleet, the worker and the bridge as production runs them) fed the demo's
 * stream (orders with payouts and carts beside them: duplicates, re-emits, cancellations,
 * conflicts, poison) at half the rate it sustains, through a light fault schedule (a worker
 * killed and restarted, a full provider outage), sampling every minute the orders completed
 * per second, their p50 and p99 latency and every process's resident memory; then reconcile
 * judges the invariants, as after a chaos run. Writes soak.json, soak.md and soak.svg to
 * artifacts/soak (or --report). Exit 1 on any violation; the memory slopes and the p99 ratio
 * are printed against their targets.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfigOrExit } from '../../src/config/load-or-exit';
import { createPool } from '../../src/db/pool';
import { buildRouteTable } from '../../src/domains';
import { WORKFLOW_TYPE } from '../../src/domains/orders/workflows/workflow-types';
import { createKafka } from '../../src/kafka/kafka-client';
import { DISCREPANCY_CLASSES } from '../../src/reconcile/facts';
import { runReconcile } from '../../src/reconcile/reconcile';
import { connectClient } from '../../src/temporal/connection';
import { UsageError } from '../../src/util/usage-error';
import { Fleet } from '../chaos/fleet';
import { runSchedule } from '../chaos/inject';
import { groupCaughtUp, publishSpread, waitForQuiescence } from '../chaos/observe';
import type { ScheduledFault } from '../chaos/schedule';
import { startCommandsOf } from '../bench/direct-start';
import { pickPipelineEndpoints } from '../pipeline/components';
import { buildProduction, productionArgs } from '../pipeline/production';
import { buildScenario, seedStock, type DemoScenario } from '../pipeline/scenario';
import { startPreparedStack } from '../setup/dev-stack';
import { parseSoakArgs, SOAK_USAGE } from './args';
import { renderSoakChart } from './chart';
import { takeSample, type SoakSample } from './samples';
import { formatSamples, judgeSoak, SOAK_TARGETS } from './verdict';

const ROOT = resolve(__dirname, '..', '..');
const say = (line: string) => process.stdout.write(`${line}\n`);

/** The light fault schedule: a worker restart at 40 %, a provider outage at 65 %. */
function soakSchedule(durationMs: number): ScheduledFault[] {
  return [
    { atMs: Math.round(durationMs * 0.4), kind: 'kill-worker', target: 'worker-1', forMs: 3000 },
    {
      atMs: Math.round(durationMs * 0.65),
      kind: 'provider-outage',
      target: 'providers',
      forMs: Math.round(Math.min(60_000, durationMs * 0.1)),
    },
  ];
}

async function main(argv: string[]): Promise<number> {
  const args = parseSoakArgs(argv);
  const id = Date.now().toString(36);
  const run = `soak_${id}`;
  // Per-run names, so a soak never mixes with another run, a demo or a test.
  Object.assign(process.env, {
    KAFKA_TOPICS: `${run}_orders`,
    KAFKA_GROUP_ID: `${run}_bridge`,
    TEMPORAL_TASK_QUEUE: `${run}_tq`,
    DATABASE_SCHEMA: run,
    PROVIDERS_DB_SCHEMA: `${run}_sandbox`,
    LOG_LEVEL: 'warn',
  });
  const reportDir = resolve(args.reportDir ?? join(ROOT, 'artifacts', 'soak'));
  buildProduction();
  const stack = await startPreparedStack();
  const config = loadConfigOrExit();
  const pool = createPool(config.database, { schema: config.database.schema });
  const client = await connectClient(config);
  const kafka = createKafka(config.kafka, 'soak');
  const topic = config.kafka.topics[0]!;
  const { providersUrl, metricsUrl, env } = await pickPipelineEndpoints(stack.state.env, {
    restarted: true,
  });
  const fleet = new Fleet(
    {
      providers: { entry: 'harness/sandbox/main.ts', readyUrl: `${providersUrl}/admin/faults` },
      'worker-1': { entry: productionArgs('worker') },
      bridge: { entry: productionArgs('bridge'), readyUrl: metricsUrl },
    },
    env,
    join(reportDir, 'logs'),
  );
  const drain = (scenario: DemoScenario, timeoutMs: number) =>
    waitForQuiescence(
      client,
      scenario.prefix,
      scenario.expectedWorkflows,
      timeoutMs,
      () => undefined,
      undefined,
      () => groupCaughtUp(kafka, config.kafka.groupId, topic),
    );
  try {
    for (const name of ['providers', 'worker-1', 'bridge']) await fleet.start(name);
    let rate = args.rate;
    if (rate === undefined) {
      // Half the rate the pipeline sustains on a backlog of the same mix.
      const calibration = buildScenario(args.calibrateOrders, args.seed + 1000);
      await seedStock(pool, calibration);
      const t0 = Date.now();
      await publishSpread(kafka, topic, calibration.records, 0, t0);
      await drain(calibration, 30 * 60_000);
      const sustained = args.calibrateOrders / ((Date.now() - t0) / 1000);
      rate = Number((sustained / 2).toFixed(2));
      say(
        `calibration: ${args.calibrateOrders} orders (with the demo's payouts and carts) in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${sustained.toFixed(1)} orders/s sustained; the soak runs at ${rate}`,
      );
    }
    const orders = Math.max(1, Math.round((rate * args.durationMs) / 1000));
    const scenario = buildScenario(orders, args.seed);
    await seedStock(pool, scenario);
    // When each order run's event was sent, by the workflow ID the bridge derives from it.
    // Keyed by the record itself: a resend carries the same value under another event ID.
    const runOf = new Map<object, string>();
    for (const r of scenario.records) {
      const cmd = startCommandsOf([r])[0];
      if (cmd?.workflowType === WORKFLOW_TYPE.orderFulfillment) runOf.set(r, cmd.workflowId);
    }
    const sentAt = new Map<string, number>();
    const schedule = soakSchedule(args.durationMs);
    say(
      `soak ${run}: ${args.durationMs / 60_000} min at ${rate} orders/s (${orders} orders, ${scenario.records.length} records with payouts, carts and the demo's defects); faults: worker restart at ${schedule[0]!.atMs / 60_000} min, provider outage at ${(schedule[1]!.atMs / 60_000).toFixed(1)} min for ${schedule[1]!.forMs / 1000} s`,
    );
    const startedAt = Date.now();
    const samples: SoakSample[] = [];
    const sampling = (async () => {
      for (let k = 1; k * args.sampleMs <= args.durationMs; k++) {
        const to = startedAt + k * args.sampleMs;
        await new Promise((r) => setTimeout(r, Math.max(0, to - Date.now())));
        const sample = await takeSample(client, {
          prefix: scenario.prefix,
          startedAt,
          from: new Date(to - args.sampleMs),
          to: new Date(to),
          sentAt,
          pids: {
            ...Object.fromEntries(
              ['worker-1', 'bridge', 'providers'].map((n) => [n, fleet.pidOf(n)]),
            ),
            ...stack.state.pids,
          },
        });
        samples.push(sample);
        say(
          `t+${(sample.tMs / 60_000).toFixed(1)} min: ${sample.perSecond} orders/s, p99 ${sample.p99} ms, worker ${sample.rssMiB['worker-1'] ?? '–'} MiB, bridge ${sample.rssMiB.bridge ?? '–'} MiB, load ${sample.load}`,
        );
      }
    })();
    const [injected] = await Promise.all([
      runSchedule(
        {
          fleet,
          stack,
          providersUrl,
          providersToken: config.providers.adminToken,
          seed: args.seed,
          startedAt,
          log: say,
        },
        schedule,
      ),
      publishSpread(kafka, topic, scenario.records, args.durationMs, startedAt, (sent, at) => {
        for (const m of sent) {
          const workflowId = runOf.get(m);
          if (workflowId !== undefined && !sentAt.has(workflowId)) sentAt.set(workflowId, at);
        }
      }),
      sampling,
    ]);
    const { parkedOnTransient } = await drain(scenario, Math.max(10 * 60_000, args.durationMs));
    const report = await runReconcile(
      { kafka, client, pool },
      {
        topics: config.kafka.topics,
        prefix: scenario.prefix,
        schema: config.database.schema,
        providersUrl,
        providersToken: config.providers.adminToken,
        routes: buildRouteTable(config.bridge.extraRoutes),
        translateOptions: { maxBytes: config.bridge.maxMessageBytes },
      },
    );
    const invariants: [string, number][] = [
      ...DISCREPANCY_CLASSES.map((c) => [c, report.counts[c]] as [string, number]),
      ['unexpected-process-exit', fleet.unexpectedExits.length],
      ['parked-on-transient-cause', parkedOnTransient],
    ];
    const violations = invariants.reduce((n, [, v]) => n + v, 0);
    const verdict = judgeSoak(samples, args.durationMs);
    const lines = [
      `soak ${run}, ${new Date(startedAt).toISOString()}: ${args.durationMs / 60_000} min at ${rate} orders/s, seed ${args.seed}; load average at the end ${loadavg()[0]!.toFixed(1)}`,
      '',
      formatSamples(samples),
      '',
      `RSS slope after the first ${verdict.warmupMs / 60_000} min (MiB per hour; target ≤ ${SOAK_TARGETS.rssSlopeMiBPerHour} for the worker and the bridge): ${Object.entries(
        verdict.slopes,
      )
        .map(([n, v]) => `${n} ${v}`)
        .join(', ')}`,
      `p99 of the first ${verdict.windowMs / 60_000} min ${verdict.p99.first} ms, of the last ${verdict.p99.last} ms: ${verdict.p99.ratio}× (target ≤ ${SOAK_TARGETS.p99Ratio})`,
      `faults: ${injected.map((f) => `${f.kind} ${f.target} at ${(f.startMs / 60_000).toFixed(1)} min`).join(', ')}`,
      `invariants: ${violations === 0 ? 'all hold' : `${violations} violation(s)`} (${invariants.map(([n, v]) => `${n} ${v}`).join(', ')})`,
      ...report.discrepancies.slice(0, 20).map((d) => `  ${d.class} ${d.subject}: ${d.detail}`),
      ...fleet.unexpectedExits.map((e) => `  unexpected: ${e}`),
    ];
    mkdirSync(reportDir, { recursive: true });
    writeFileSync(join(reportDir, 'soak.md'), `${lines.join('\n')}\n`);
    writeFileSync(
      join(reportDir, 'soak.json'),
      `${JSON.stringify(
        {
          ...{ run, startedAt: new Date(startedAt).toISOString(), rate, orders, args },
          ...{ samples: samples.map(({ latencies, ...s }) => s), verdict, invariants, injected },
        },
        null,
        2,
      )}\n`,
    );
    writeFileSync(
      join(reportDir, 'soak.svg'),
      renderSoakChart(samples, {
        title: `onceflow soak, ${args.durationMs / 60_000} min at ${rate} orders/s (${new Date(startedAt).toISOString().slice(0, 16)}Z)`,
        rate,
        durationMs: args.durationMs,
      }),
    );
    for (const l of lines) say(l);
    say(`written to ${reportDir}: soak.md, soak.json, soak.svg`);
    return violations === 0 ? 0 : 1;
  } finally {
    await fleet.stopAll();
    await client.connection.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n${SOAK_USAGE}`);
      process.exit(2);
    }
    process.stderr.write(`soak failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
