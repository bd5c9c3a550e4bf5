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
  const { stream } = buildScenario(60, 12, CHAOS_STREAM_MIX);

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

  it('expects every refused message in the DLQ and a workflow per resend', () => {
    const c = stream.counts;
    assert.equal(
      expectedDeadLetters(stream),
      c.poison + c.orderIdMismatches + c.conflicts + c.stale,
    );
    assert.equal(stream.expectedWorkflows, c.orders + c.cancels + c.resends + c.versionBumps);
  });
});
