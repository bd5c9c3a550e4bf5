import { strict as assert } from 'node:assert';
import { formatFuzzReport, writeFuzzReport } from '../../src/fuzz/report';
import { runFuzz } from '../../src/fuzz/run';

/**
 * A short seeded fuzz run (the same as `npm run fuzz -- --messages 2500 --seed 7`): hostile
 * messages of every kind and codec through the real bridge process, a worker and the sandbox
 * providers. Every message must be started, deduplicated or dead-lettered, every partition
 * committed to its end, the bridge never exit or restart its consumer, reconcile clean.
 */
describe('fuzz: hostile messages through the real bridge', function () {
  this.timeout(6 * 60_000);

  it('accounts for every message of a seeded hostile stream without a wedge or a restart', async () => {
    const report = await runFuzz({
      messages: 2_500,
      seed: 7,
      // A wedge shows as no progress; the verdict names the partition and message kind.
      stallMs: 20_000,
      deadlineMs: 120_000,
      workflowsTimeoutMs: 60_000,
    });
    const file = writeFuzzReport(report);
    const text = formatFuzzReport(report);
    assert.ok(report.ok, `${text}\nreport: ${file}`);
    assert.equal(report.drained, 'complete');
    const handled = report.judgement.byKind.reduce(
      (s, k) => s + k.started + k.deduplicated + k.deadLettered,
      0,
    );
    assert.equal(handled, report.messages, 'every message accounted for');
    assert.ok((report.judgement.byKind.find((k) => k.kind === 'valid-order')?.started ?? 0) > 0);
  });
});
