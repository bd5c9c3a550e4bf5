import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runNpmScript, tailOf } from '../../../support/npm-run';

interface SoakJson {
  rate: number;
  samples: Array<{ orders: number; p99: number; load: number; rssMiB: Record<string, number> }>;
  invariants: Array<[string, number]>;
  injected: Array<{ kind: string }>;
}

/**
 * `npm run soak`, one minute of it (its figures stay out of the test): the pipeline fed at a
 * given rate through a worker restart and a provider outage, sampled three times, judged by
 * reconcile, and its table, JSON and chart written.
 */
describe('npm run soak (a one-minute smoke run)', function () {
  this.timeout(8 * 60_000);

  it('samples rate, latency and every process RSS, holds every invariant, draws the chart', async () => {
    const report = mkdtempSync(join(tmpdir(), 'onceflow-soak-'));
    const run = await runNpmScript('soak', [
      ...['--duration', '60s', '--sample', '20s', '--rate', '2', '--report', report],
    ]);
    assert.equal(run.code, 0, `${tailOf(run.stdout)}\n${tailOf(run.stderr)}`);
    const soak = JSON.parse(readFileSync(join(report, 'soak.json'), 'utf8')) as SoakJson;
    assert.equal(soak.rate, 2);
    assert.equal(soak.samples.length, 3);
    for (const s of soak.samples) {
      assert.ok(s.rssMiB['worker-1'] ?? s.rssMiB.bridge, JSON.stringify(s.rssMiB));
      assert.ok(s.load >= 0);
    }
    assert.ok(soak.samples.reduce((n, s) => n + s.orders, 0) > 0, 'orders closed');
    for (const [name, n] of soak.invariants) assert.equal(n, 0, name);
    assert.deepEqual(soak.injected.map((f) => f.kind).sort(), ['kill-worker', 'provider-outage']);
    assert.match(readFileSync(join(report, 'soak.svg'), 'utf8'), /^<svg [^]*resident memory/);
    assert.match(readFileSync(join(report, 'soak.md'), 'utf8'), /invariants: all hold/);
    assert.ok(existsSync(join(report, 'logs')));
  });
});
