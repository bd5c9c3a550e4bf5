import { strict as assert } from 'node:assert';
import { parseSoakArgs } from '../../../../harness/soak/args';
import { renderSoakChart } from '../../../../harness/soak/chart';
import type { SoakSample } from '../../../../harness/soak/samples';
import { formatSamples, judgeSoak, slopePerHour } from '../../../../harness/soak/verdict';

const minute = 60_000;
/** A sample at minute `m`: the worker's RSS grows by `workerGrowth` MiB a minute. */
function sample(m: number, latencies: number[], workerGrowth = 0): SoakSample {
  return {
    tMs: m * minute,
    load: 1.5,
    orders: latencies.length,
    perSecond: latencies.length / 60,
    p50: latencies[Math.floor(latencies.length / 2)] ?? NaN,
    p99: latencies.at(-1) ?? NaN,
    rssMiB: { 'worker-1': 300 + workerGrowth * m, bridge: 250 },
    latencies: [...latencies].sort((a, b) => a - b),
  };
}

describe('soak: what the samples say', () => {
  it('fits the RSS slope in MiB per hour by least squares', () => {
    const points = [0, 1, 2, 3].map((m) => ({ tMs: m * minute, v: 100 + 2 * m }));
    assert.equal(Math.round(slopePerHour(points) * 1000) / 1000, 120);
    assert.ok(Number.isNaN(slopePerHour(points.slice(0, 1))));
  });

  it('leaves the warm-up out of the slopes and compares the p99 of the last window with the first', () => {
    const flat = Array.from({ length: 100 }, (_, i) => 100 + i);
    const samples = [
      // Warm-up: the worker's RSS climbs, which must not count.
      ...Array.from({ length: 10 }, (_, i) => sample(i + 1, flat, 20)),
      ...Array.from({ length: 50 }, (_, i) => sample(i + 11, flat, 0)),
    ].map((s, i) => (i < 10 ? s : { ...s, rssMiB: { 'worker-1': 500, bridge: 250 } }));
    const last = samples.length - 1;
    samples[last] = { ...samples[last]!, latencies: [...flat, 1000].sort((a, b) => a - b) };
    const v = judgeSoak(samples, 60 * minute);
    assert.equal(v.warmupMs, 10 * minute);
    assert.equal(v.windowMs, 10 * minute);
    assert.deepEqual(v.slopes, { 'worker-1': 0, bridge: 0 });
    assert.equal(v.p99.first, 198);
    assert.ok(v.p99.last > v.p99.first, `${v.p99.last}`);
  });

  it('shortens the warm-up and the windows for a short run', () => {
    const v = judgeSoak(
      [1, 2, 3].map((m) => sample(m, [100])),
      3 * minute,
    );
    assert.equal(v.warmupMs, 0.5 * minute);
    assert.equal(v.windowMs, minute);
  });

  it('prints a row per sample with the load and every process, and draws the three panels', () => {
    const samples = [sample(1, [120, 150]), sample(2, [130, 160])];
    const table = formatSamples(samples);
    assert.match(
      table,
      /\| t \(min\) \| load \| orders closed \| orders\/s \| p50 \/ p99 ms \| worker-1 RSS MiB \| bridge RSS MiB \|/,
    );
    assert.match(table, /\| 2\.0 \| 1\.5 \| 2 \| 0\.03\d* \| 160 \/ 160 \| 300 \| 250 \|/);
    const svg = renderSoakChart(samples, { title: 'a <soak>', rate: 1, durationMs: 2 * minute });
    assert.match(svg, /^<svg /);
    assert.match(svg, /a &lt;soak>/);
    for (const panel of ['orders completed per second', 'latency', 'resident memory'])
      assert.ok(svg.includes(panel), panel);
    // completed, published, p99, p50, and one line per process
    assert.equal(svg.match(/<polyline/g)?.length, 6);
  });

  it('reads its options, refusing what would measure nothing', () => {
    assert.deepEqual(parseSoakArgs([]), {
      durationMs: 60 * minute,
      calibrateOrders: 400,
      sampleMs: minute,
      seed: 1,
    });
    assert.equal(
      parseSoakArgs(['--rate', '2.5', '--duration', '90s', '--sample', '30s']).rate,
      2.5,
    );
    assert.throws(() => parseSoakArgs(['--duration', '1m']), /at least three samples/);
    assert.throws(() => parseSoakArgs(['--rate', '0']), /--rate/);
    assert.throws(() => parseSoakArgs(['--sample', '1s']), /at least 5s/);
  });
});
