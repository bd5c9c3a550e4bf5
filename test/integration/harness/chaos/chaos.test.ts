import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNpmScript } from '../../../support/npm-run';

/** Runs `npm run chaos` as a user would: its exit code, stdout and stderr. */
const runChaos = (args: string[]) => runNpmScript('chaos', args);

interface ChaosSummary {
  stream: {
    orders: number;
    cancels: number;
    stale: number;
    duplicates: number;
    reemits: number;
    conflicts: number;
    poison: number;
    resends: number;
    versionBumps: number;
    orderIdMismatches: number;
  };
  payouts: {
    payouts: number;
    cancels: number;
    duplicates: number;
    reemits: number;
    versionBumps: number;
    conflicts: number;
    poison: number;
  };
  carts: {
    carts: number;
    lines: number;
    declined: number;
    cancels: number;
    versionBumps: number;
    poison: number;
    conflicts: number;
  };
  expectedWorkflows: number;
  secondRuns: { duplicate: number; orderConflict: number };
  payoutSecondRuns: { duplicate: number; orderConflict: number };
  cartSecondRuns: { duplicate: number; orderConflict: number };
  read: { workflows: number; dlqMessages: number; orders: number; payouts: number; carts: number };
  violations: number;
  invariants: Record<string, number>;
  cartInvariants: Record<string, number>;
  faults: Record<string, number>;
  scheduled: Record<string, number>;
  transientWaits: { orders: number; maxMs: number; totalMs: number; parkedOnTransient: number };
  report: string;
}

describe('npm run chaos (short seeded run)', function () {
  this.timeout(6 * 60_000);

  it('survives kills, provider faults and outages, Kafka/Postgres/Temporal restarts and time passing with zero violations', async () => {
    const reportDir = mkdtempSync(join(tmpdir(), 'onceflow-chaos-'));
    const { code, stdout, stderr } = await runChaos([
      // Seed 12's 60-order stream holds every defect class (1 stale, 1 conflict, 2 resends,
      // 1 version bump, 2 orderId mismatches, 1 poison…): test/unit/harness/chaos/stream-mix.test.ts.
      ...['--orders', '60', '--seed', '12', '--duration', '60s'],
      ...['--report', reportDir, '--json'],
    ]);
    const tail = stderr.split('\n').slice(-40).join('\n');
    assert.equal(code, 0, tail);
    const summary = JSON.parse(stdout.trim().split('\n').at(-1)!) as ChaosSummary;
    assert.equal(summary.violations, 0, tail);
    for (const [name, n] of Object.entries(summary.invariants)) assert.equal(n, 0, name);
    assert.equal(summary.invariants['unexpected-process-exit'], 0);
    // Clean, having read the whole run: one workflow per order and cancellation plus one per
    // resent order (which ended duplicate, acting on nothing: reconcile found no second
    // effect), and every rejected message in the DLQ (a bridge killed after a DLQ write may
    // write it again).
    // Payouts ran beside the orders (one workflow per payout, cancellation and version bump),
    // and reconcile judged every one of them by the payout invariants.
    // Carts too: loops over their lines, a declined primary card caught and paid by the
    // backup, branches at once, cancellations at random points; judged by the cart invariants.
    const { stream, read, payouts, carts } = summary;
    assert.equal(
      summary.expectedWorkflows,
      stream.orders +
        stream.cancels +
        stream.resends +
        stream.versionBumps +
        (payouts.payouts + payouts.cancels + payouts.versionBumps) +
        (carts.carts + carts.cancels + carts.versionBumps),
    );
    assert.equal(read.workflows, summary.expectedWorkflows);
    assert.ok(payouts.payouts > 0 && payouts.cancels > 0 && payouts.versionBumps > 0);
    assert.equal(read.payouts, payouts.payouts);
    assert.ok(carts.lines > carts.carts && carts.declined > 0 && carts.cancels > 0);
    assert.equal(read.carts, carts.carts);
    assert.ok(Object.keys(summary.cartInvariants).length >= 10);
    for (const [name, n] of Object.entries(summary.cartInvariants)) assert.equal(n, 0, name);
    assert.ok(summary.cartSecondRuns.duplicate >= carts.versionBumps);
    assert.equal(summary.cartSecondRuns.orderConflict, 0);
    assert.equal(read.orders, stream.orders + stream.stale);
    assert.ok(summary.payoutSecondRuns.duplicate >= payouts.versionBumps);
    assert.equal(summary.payoutSecondRuns.orderConflict, 0);
    assert.ok(summary.secondRuns.duplicate > 0, JSON.stringify(summary.secondRuns));
    // Time passed once: the ledger reaped, closed runs deleted, keys of settled orders
    // expired, the topic read again. Each deleted order run came back as a duplicate.
    const deletedOrderRuns = summary.faults['closed order runs deleted (time passes)']!;
    assert.ok(deletedOrderRuns > 0, JSON.stringify(summary.faults));
    assert.ok(summary.faults['messages read again (time passes)']! > 0);
    assert.ok(summary.faults['provider keys expired (time passes)']! > 0);
    assert.ok(
      summary.secondRuns.duplicate <= stream.resends + stream.versionBumps + deletedOrderRuns,
    );
    assert.equal(summary.secondRuns.orderConflict, 0);
    assert.ok(
      read.dlqMessages >=
        stream.poison +
          stream.conflicts +
          stream.stale +
          stream.orderIdMismatches +
          payouts.poison +
          payouts.conflicts +
          carts.poison +
          carts.conflicts,
    );
    // Every defect class of the stream was in it.
    for (const [defect, n] of Object.entries(summary.stream)) assert.ok(n > 0, `${defect}: ${n}`);
    // Every fault the schedule planned actually happened, and every fault class was planned.
    for (const [kind, n] of Object.entries(summary.scheduled))
      assert.equal(summary.faults[kind], n, kind);
    assert.ok(summary.scheduled['kill-worker']! >= 2);
    assert.ok(summary.scheduled['kill-bridge']! >= 1);
    assert.ok(summary.scheduled['provider-faults']! >= 3);
    assert.equal(summary.scheduled['kafka-restart'], 1);
    assert.equal(summary.scheduled['postgres-restart'], 1);
    // The outage kinds ran too: the Temporal server killed and restarted once, the providers
    // stopped at least once, and no order parked on an outage. The waited-orders figures are
    // reported (how many orders an outage catches in flight depends on the schedule: in this
    // short run the pipeline may be idle while the providers are down, so 0 is allowed).
    assert.equal(summary.faults['temporal-restart'], 1);
    assert.ok(summary.faults['provider-outage']! >= 1, JSON.stringify(summary.faults));
    const waits = summary.transientWaits;
    for (const n of [waits.orders, waits.maxMs, waits.totalMs])
      assert.ok(Number.isInteger(n) && n >= 0, JSON.stringify(waits));
    assert.ok(waits.totalMs >= waits.maxMs, JSON.stringify(waits));
    assert.equal(waits.parkedOnTransient, 0);
    assert.equal(summary.faults['orders that waited on a transient cause'], waits.orders);
    assert.equal(summary.faults['longest transient wait (s)'], Math.round(waits.maxMs / 1000));
    assert.equal(summary.faults['total transient wait (s)'], Math.round(waits.totalMs / 1000));

    const file = join(reportDir, 'report.html');
    assert.equal(summary.report, file);
    assert.ok(existsSync(file));
    const html = readFileSync(file, 'utf8');
    for (const kind of [
      'kill-worker',
      'kill-bridge',
      'provider-faults',
      'kafka-restart',
      'postgres-restart',
      'provider-outage',
      'temporal-restart',
      'time-passes',
    ])
      assert.match(html, new RegExp(`class="fault-marker" data-kind="${kind}"`));
    assert.match(html, /orders that waited on a transient cause<\/td><td>\d+/);
    assert.match(html, /stale versions \(placement after cancellation\)<\/td><td>[1-9]/);
    assert.match(html, /resends \(fresh event ID, no version\)<\/td><td>[1-9]/);
    assert.match(html, /orderId ≠ aggregateId \(poison\)<\/td><td>[1-9]/);
    assert.match(html, /payouts requested \(paid or refused\)<\/td><td>[1-9]/);
    assert.match(html, /carts checked out \(fulfilled or declined\)<\/td><td>[1-9]/);
    assert.match(html, /<td>release-missing<\/td><td>0<\/td>/);
    assert.match(
      html,
      /ended duplicate \(of \d+ resends \+ \d+ version bumps \+ \d+ runs deleted, read again\)<\/td><td>[1-9]/,
    );
    assert.match(html, new RegExp(`Reconcile read: \\d+ messages .* ${read.workflows} workflows`));
    assert.doesNotMatch(html, /<script|<link /);
  });
});
