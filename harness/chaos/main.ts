import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfigOrExit } from '../../src/config/load-or-exit';
import { createPool } from '../../src/db/pool';
import { buildScenario, seedStock } from '../pipeline/scenario';
import { createProgress } from '../../src/util/progress';
import { createKafka } from '../../src/kafka/kafka-client';
import { buildRouteTable } from '../../src/domains';
import { DISCREPANCY_CLASSES } from '../../src/reconcile/facts';
import { describeRead } from '../../src/reconcile/format';
import { runReconcile } from '../../src/reconcile/reconcile';
import { startPreparedStack } from '../setup/dev-stack';
import { pickPipelineEndpoints } from '../pipeline/components';
import { connectClient } from '../../src/temporal/connection';
import { UsageError } from '../../src/util/usage-error';
import { CHAOS_USAGE, parseChaosArgs } from './args';
import { Fleet } from './fleet';
import { acquireChaosLock, ChaosLockError } from './lock';
import { clearProviderFaults, runSchedule, type InjectContext } from './inject';
import { prepareChangedCode, RELEASES } from './deploy';
import { buildsContext, describeBuilds, readRunsOnBuilds } from './builds';
import type { TimePassesReport } from './time-passes';
import { WORKFLOW_TYPE } from '../../src/domains/orders/workflows/workflow-types';
import { cartInvariantRows } from './cart-rows';
import { CART_WORKFLOW, describeSecondRuns, PAYOUT_WORKFLOW, readSecondRuns } from './second-runs';
import {
  countTransientWaits,
  groupCaughtUp,
  publishSpread,
  startSampler,
  waitForQuiescence,
} from './observe';
import { countMissingOnTopic } from './published';
import { writeChaosReport } from './report';
import { buildSchedule, describeFault, WORKER_COUNT } from './schedule';
import { buildTopologySchedule } from './topology-faults';
import { readTopology } from '../stack/topology';
import { CHAOS_STREAM_MIX, describeStreamLine, describeStreamRows } from './stream-mix';

const ROOT = resolve(__dirname, '..', '..');

/** Faults per kind, for the summary (scheduled) and the report (injected). */
function countByKind(faults: { kind: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const f of faults) counts[f.kind] = (counts[f.kind] ?? 0) + 1;
  return counts;
}

/**
 * `npm run chaos -- --orders N --seed S [--duration 2m] [--report DIR] [--json]`: the demo's
 * pipeline (providers, two workers, bridge as processes) under a seeded fault schedule, then
 * quiescence, reconcile as the verdict, an invariant table and an HTML report. Exit 1 on any
 * discrepancy. Same seed → same stream and same schedule, so a failing seed re-runs exactly.
 */
async function main(argv: string[]): Promise<number> {
  const args = parseChaosArgs(argv);
  const json = args.json;
  const say = (line: string) => (json ? process.stderr : process.stdout).write(`${line}\n`);
  const scenario = buildScenario(args.orders, args.seed, {
    ...CHAOS_STREAM_MIX,
    ...(args.tenants > 0 ? { merchantId: (i: number) => `tenant-${i % args.tenants}` } : {}),
  });
  const id = scenario.run.replace(/^demo/, '');
  const run = `chaos_${id}`;
  // Per-run names, so a chaos run never mixes with another run, a demo or a test.
  Object.assign(process.env, {
    KAFKA_TOPICS: `${run}_orders`,
    KAFKA_GROUP_ID: `${run}_bridge`,
    TEMPORAL_TASK_QUEUE: `${run}_tq`,
    DATABASE_SCHEMA: run,
    PROVIDERS_DB_SCHEMA: `${run}_sandbox`,
  });
  const reportDir = resolve(args.reportDir ?? join(ROOT, 'artifacts', `chaos-${id}`));
  // The topology the stack will start with (its settings, read the same way by startStack).
  const schedule = [
    ...buildSchedule(args.seed, args.durationMs),
    ...buildTopologySchedule(args.seed, args.durationMs, readTopology()),
  ].sort((a, b) => a.atMs - b.atMs);
  say(`chaos run ${run}: ${args.orders} orders, seed ${args.seed}, ${args.durationMs / 1000} s`);
  say('fault schedule:');
  for (const f of schedule) say(`  ${describeFault(f)}`);

  const stack = await startPreparedStack();
  const releaseLock = acquireChaosLock(stack.paths.root);
  const config = loadConfigOrExit();
  const pool = createPool(config.database, { schema: config.database.schema });
  const client = await connectClient(config);
  const kafka = createKafka(config.kafka, 'chaos');
  const { providersUrl, metricsUrl, env } = await pickPipelineEndpoints(stack.state.env, {
    restarted: true,
  });
  const members = {
    providers: { entry: 'harness/sandbox/main.ts', readyUrl: `${providersUrl}/admin/faults` },
    bridge: { entry: 'src/kafka-bridge/main.ts', readyUrl: metricsUrl },
    ...Object.fromEntries(
      Array.from({ length: WORKER_COUNT }, (_, i) => [
        `worker-${i + 1}`,
        { entry: 'src/worker/main.ts' },
      ]),
    ),
  };
  const fleet = new Fleet(members, env, join(reportDir, 'logs'));
  /** The changed copies of src/ the `deploy` faults start the workers on (git-ignored). */
  const deployDirs = RELEASES.map((_, i) => join(stack.paths.root, `chaos-deploy-${run}-${i + 1}`));
  const builds = buildsContext(client, config, join(stack.paths.bin, 'temporal'));
  const started = Date.now();
  try {
    await seedStock(pool, scenario);
    await fleet.start('providers');
    for (let i = 1; i <= WORKER_COUNT; i++) await fleet.start(`worker-${i}`);
    await fleet.start('bridge');

    const startedAt = Date.now();
    const sampler = startSampler(client, scenario.prefix, startedAt);
    const { records } = scenario;
    const { counts } = scenario.stream;
    const payoutCounts = scenario.payouts.counts;
    const cartCounts = scenario.carts.counts;
    const topic = config.kafka.topics[0]!;
    const ctx: InjectContext = {
      ...{ fleet, stack, providersUrl, seed: args.seed, startedAt, log: say },
      providersToken: config.providers.adminToken,
      memories: {
        ...{ client, kafka, pool, schema: config.database.schema, prefix: scenario.prefix },
        ...{ topic, groupId: config.kafka.groupId },
      },
      timePassed: [],
      deployEntries: deployDirs.map((dir, i) => prepareChangedCode(dir, i + 1)),
      builds,
    };
    const [injected] = await Promise.all([
      runSchedule(ctx, schedule),
      publishSpread(kafka, topic, records, args.durationMs * 0.6, startedAt),
    ]);
    await clearProviderFaults(ctx);
    say(describeStreamLine(scenario.stream, scenario.payouts, scenario.carts));
    // Every published record must be on the topic: one that is not can never start its
    // workflow, so the run reports it and does not wait for it.
    const unpublished = await countMissingOnTopic(kafka, topic, records);
    if (unpublished > 0) say(`${unpublished} published record(s) are not on ${topic}`);

    // Resent orders (and version-bumped payouts) start a second workflow each, which must end
    // `duplicate` without effects.
    const expected = Math.max(0, scenario.expectedWorkflows - unpublished);
    const progress = createProgress('workflows finished', expected);
    const { retried, parkedOnTransient } = await waitForQuiescence(
      client,
      scenario.prefix,
      expected,
      // A large backlog on two busy cores drains at a few orders a second: slow is not stuck.
      Math.max(5 * 60_000, args.durationMs * 3, 300 * expected),
      (done, running, r) => progress.update(done, `(${running} running, ${r} parked retried)`),
      undefined,
      () => groupCaughtUp(kafka, config.kafka.groupId, topic),
    );
    progress.finish();
    sampler.stop();
    const secondRuns = await readSecondRuns(client, scenario);
    const waits = await countTransientWaits(client, scenario.prefix);
    // Every run finished on the build it started on, through two deploys and a rollback.
    const onBuilds = await readRunsOnBuilds(client, scenario.prefix);

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
    // A process that died on its own (not by the schedule) is a violation too: the pipeline
    // must ride out restarts of Kafka and Postgres, not crash and lean on a supervisor.
    const invariants: [string, number][] = [
      ...DISCREPANCY_CLASSES.map((c) => [c, report.counts[c]] as [string, number]),
      ['unexpected-process-exit', fleet.unexpectedExits.length],
      ['published-not-on-topic', unpublished],
      // Every outage is shorter than the transient window: an order must wait it out.
      ['parked-on-transient-cause', parkedOnTransient],
      ['run-changed-build', onBuilds.changedBuild.length],
      ['rollback-undone', builds.seen.undone],
    ];
    const faultCounts = new Map(Object.entries(countByKind(injected)));
    // What time forgot (the claims alone remembered) and how much was read again.
    const timePassed = ctx.timePassed ?? [];
    const sumOf = (pick: (r: TimePassesReport) => number) =>
      timePassed.reduce((total, r) => total + pick(r), 0);
    const deletedRuns = (type: string) => sumOf((r) => r.deletedRuns[type] ?? 0);
    faultCounts.set(
      'ledger rows reaped (time passes)',
      sumOf((r) => r.reapedLedgerRows),
    );
    faultCounts.set(
      'closed order runs deleted (time passes)',
      deletedRuns(WORKFLOW_TYPE.orderFulfillment),
    );
    faultCounts.set(
      'closed cancellation runs deleted (time passes)',
      deletedRuns(WORKFLOW_TYPE.orderCancellation),
    );
    faultCounts.set('closed payout runs deleted (time passes)', deletedRuns(PAYOUT_WORKFLOW));
    faultCounts.set('closed cart runs deleted (time passes)', deletedRuns(CART_WORKFLOW));
    faultCounts.set(
      'provider keys expired (time passes)',
      sumOf((r) => r.expiredKeys),
    );
    faultCounts.set(
      'messages read again (time passes)',
      sumOf((r) => r.rereadMessages),
    );
    faultCounts.set('parked orders retried', retried);
    faultCounts.set('closed runs read for their build', onBuilds.checked);
    for (const [build, n] of Object.entries(onBuilds.byBuild))
      faultCounts.set(`runs finished on build ${build.slice(0, 12)}…`, n);
    faultCounts.set('orders that waited on a transient cause', waits.orders);
    faultCounts.set('longest transient wait (s)', Math.round(waits.maxMs / 1000));
    faultCounts.set('total transient wait (s)', Math.round(waits.totalMs / 1000));
    const violations =
      report.discrepancies.length +
      fleet.unexpectedExits.length +
      parkedOnTransient +
      unpublished +
      onBuilds.changedBuild.length +
      builds.seen.undone;
    // The carts' breaches by the cart domain's own invariants: a breakdown of the classes above.
    const cartInvariants = cartInvariantRows(report.discrepancies);
    const second = describeSecondRuns(secondRuns, scenario, deletedRuns);
    const exitCode = violations === 0 ? 0 : 1;
    const file = join(reportDir, 'report.html');
    writeChaosReport(file, {
      run,
      seed: args.seed,
      orders: args.orders,
      durationMs: Date.now() - startedAt,
      samples: sampler.samples,
      faults: injected,
      invariants,
      read: describeRead(report.read),
      faultCounts: [...faultCounts],
      streamDefects: describeStreamRows(scenario.stream, scenario.payouts, scenario.carts),
      cartInvariants,
      secondRuns: second.rows,
      exitCode,
    });
    say('');
    say(`invariant                    violations   (reconcile, prefix ${scenario.prefix})`);
    for (const [name, n] of invariants) say(`  ${n === 0 ? '✓' : '✗'} ${name.padEnd(26)} ${n}`);
    say('  carts, by the cart invariants (a breakdown of the classes above):');
    for (const [name, n] of cartInvariants)
      say(`    ${n === 0 ? '✓' : '✗'} ${name.padEnd(24)} ${n}`);
    say(`  reconcile ${describeRead(report.read)}`);
    for (const d of report.discrepancies.slice(0, 20))
      say(`    ${d.class} ${d.subject}: ${d.detail}`);
    for (const line of second.lines) say(line);
    say(`faults: ${[...faultCounts].map(([k, v]) => `${k} ${v}`).join(', ')}`);
    say(
      `transient waits: ${waits.orders} order(s) waited on a provider cause, longest ${(waits.maxMs / 1000).toFixed(1)} s, total ${(waits.totalMs / 1000).toFixed(0)} s; ${parkedOnTransient} parked on one`,
    );
    for (const e of fleet.unexpectedExits) say(`  unexpected: ${e}`);
    for (const r of onBuilds.changedBuild.slice(0, 20)) say(`  changed build: ${r}`);
    say(describeBuilds(builds.seen, onBuilds));
    say(
      `verdict: ${violations === 0 ? 'all invariants hold' : `${violations} violation(s)`} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    say(`report: ${file}`);
    say(
      `re-run: npm run chaos -- --orders ${args.orders} --seed ${args.seed} --duration ${args.durationMs / 1000}s`,
    );
    if (json) {
      const summary = {
        run,
        seed: args.seed,
        orders: args.orders,
        stream: counts,
        payouts: payoutCounts,
        carts: cartCounts,
        expectedWorkflows: expected,
        secondRuns: secondRuns.orders,
        payoutSecondRuns: secondRuns.payouts,
        cartSecondRuns: secondRuns.carts,
        timePassed,
        transientWaits: { ...waits, parkedOnTransient },
        violations,
        invariants: Object.fromEntries(invariants),
        cartInvariants: Object.fromEntries(cartInvariants),
        faults: Object.fromEntries(faultCounts),
        scheduled: countByKind(schedule),
        injected,
        unexpectedExits: fleet.unexpectedExits,
        builds: { trail: builds.seen.trail, ...onBuilds },
        read: report.read,
        report: file,
      };
      process.stdout.write(`${JSON.stringify(summary)}\n`);
    }
    return exitCode;
  } finally {
    await fleet.stopAll();
    await client.connection.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    for (const dir of deployDirs) rmSync(dir, { recursive: true, force: true });
    releaseLock();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof ChaosLockError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n${CHAOS_USAGE}`);
      process.exit(2);
    }
    process.stderr.write(`chaos run failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
