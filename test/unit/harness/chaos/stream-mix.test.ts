import { strict as assert } from 'node:assert';
import {
  CHAOS_STREAM_MIX,
  describeStreamLine,
  describeStreamRows,
  expectedDeadLetters,
} from '../../../../harness/chaos/stream-mix';
import { buildScenario } from '../../../../harness/pipeline/scenario';

describe('chaos: the stream mix', () => {
  // The short chaos test runs seed 12 with 60 orders and checks every defect class was in it.
  const scenario = buildScenario(60, 12, CHAOS_STREAM_MIX);
  const { stream, payouts, carts } = scenario;

  it('holds every defect class, the producer mistakes included, in the short run (seed 12)', () => {
    for (const [defect, n] of Object.entries(stream.counts)) assert.ok(n > 0, `${defect}: ${n}`);
  });

  it('reports every count in the stream table and the summary line', () => {
    const rows = new Map(describeStreamRows(stream));
    const c = stream.counts;
    assert.equal(rows.get('messages'), stream.records.length);
    assert.equal(rows.get('resends (fresh event ID, no version)'), c.resends);
    assert.equal(rows.get('version bumps (same order, next version)'), c.versionBumps);
    assert.equal(rows.get('orderId ≠ aggregateId (poison)'), c.orderIdMismatches);
    assert.equal(rows.get('stale versions (placement after cancellation)'), c.stale);
    assert.equal(rows.size, 11);
    const line = describeStreamLine(stream);
    assert.match(line, new RegExp(`${c.resends} resends, ${c.versionBumps} version bumps`));
    assert.match(line, new RegExp(`${c.orderIdMismatches} orderId mismatches`));
  });

  it('runs payouts beside the orders: one stream, one run prefix, both in every count', () => {
    assert.equal(payouts.counts.payouts, 15);
    assert.ok(payouts.counts.cancels > 0 && payouts.counts.versionBumps > 0);
    assert.equal(
      scenario.records.length,
      stream.records.length + payouts.records.length + carts.records.length,
    );
    assert.equal(
      scenario.expectedWorkflows,
      stream.expectedWorkflows + payouts.expectedWorkflows + carts.expectedWorkflows,
    );
    for (const id of [...stream.orders.keys(), ...payouts.payouts.keys(), ...carts.carts.keys()])
      assert.ok(id.startsWith(scenario.prefix), id);
    assert.ok(scenario.orderPrefix.startsWith(scenario.prefix));
    assert.ok(!scenario.orderPrefix.startsWith(scenario.payoutPrefix));
    // Deterministic per seed (the run name aside).
    const again = buildScenario(60, 12, CHAOS_STREAM_MIX);
    assert.deepEqual(again.payouts.counts, payouts.counts);
    assert.deepEqual(
      [...again.payouts.payouts.values()].map((p) => p.amountMinor),
      [...payouts.payouts.values()].map((p) => p.amountMinor),
    );
    const rows = new Map(describeStreamRows(stream, payouts));
    assert.equal(rows.get('messages'), stream.records.length + payouts.records.length);
    assert.equal(rows.get('payouts requested (paid or refused)'), 15);
    assert.equal(
      rows.get('payout version bumps (same payout, next version)'),
      payouts.counts.versionBumps,
    );
    assert.match(
      describeStreamLine(stream, payouts),
      new RegExp(`and ${payouts.records.length} payout messages \\(15 payouts`),
    );
    // The payouts' poison and conflicts are dead-lettered too (a longer run holds both).
    const long = buildScenario(400, 12, CHAOS_STREAM_MIX);
    const p = long.payouts.counts;
    assert.ok(p.poison > 0 && p.conflicts > 0, JSON.stringify(p));
    assert.equal(
      expectedDeadLetters(long.stream, long.payouts),
      expectedDeadLetters(long.stream) + p.poison + p.conflicts,
    );
  });

  it('runs carts beside them: loops, declines that fall back, cancellations, in the short run', () => {
    const k = carts.counts;
    assert.equal(k.carts, 15);
    assert.ok(k.lines > k.carts && k.declined > 0 && k.cancels > 0, JSON.stringify(k));
    assert.ok(!scenario.cartPrefix.startsWith(scenario.payoutPrefix));
    assert.ok(!scenario.orderPrefix.startsWith(scenario.cartPrefix));
    const rows = new Map(describeStreamRows(stream, payouts, carts));
    assert.equal(rows.get('messages'), scenario.records.length);
    assert.equal(rows.get('carts checked out (fulfilled or declined)'), 15);
    assert.equal(rows.get('cart lines (each held once)'), k.lines);
    assert.match(
      describeStreamLine(stream, payouts, carts),
      new RegExp(`and ${carts.records.length} cart messages \\(15 carts of ${k.lines} lines`),
    );
    const long = buildScenario(800, 12, CHAOS_STREAM_MIX);
    const c = long.carts.counts;
    assert.ok(c.poison > 0 && c.conflicts > 0 && c.backupDeclined > 0, JSON.stringify(c));
    assert.equal(
      expectedDeadLetters(long.stream, long.payouts, long.carts),
      expectedDeadLetters(long.stream, long.payouts) + c.poison + c.conflicts,
    );
  });

  it('expects every refused message in the DLQ and a workflow per resend', () => {
    const c = stream.counts;
    assert.equal(
      expectedDeadLetters(stream),
      c.poison + c.orderIdMismatches + c.conflicts + c.stale,
    );
    assert.equal(stream.expectedWorkflows, c.orders + c.cancels + c.resends + c.versionBumps);
  });
});
