/**
 * What the soak's samples say: each process's RSS slope once warmed up (MiB per hour, least
 * squares), p99 of the last window against the first, and the table of every sample.
 */
import { percentile } from '../bench/peers/workload';
import type { SoakSample } from './samples';

/** The thresholds the soak is read against (issue 45): printed, not enforced by the exit code. */
export const SOAK_TARGETS = {
  /** Worker and bridge RSS slope after warm-up, MiB per hour. */
  rssSlopeMiBPerHour: 10,
  /** p99 of the last window over the first. */
  p99Ratio: 1.2,
} as const;

/** Least-squares slope of y over x (x in hours), or NaN with fewer than two points. */
export function slopePerHour(points: ReadonlyArray<{ tMs: number; v: number }>): number {
  if (points.length < 2) return NaN;
  const xs = points.map((p) => p.tMs / 3_600_000);
  const mx = xs.reduce((s, x) => s + x, 0) / xs.length;
  const my = points.reduce((s, p) => s + p.v, 0) / points.length;
  let num = 0;
  let den = 0;
  points.forEach((p, i) => {
    num += (xs[i]! - mx) * (p.v - my);
    den += (xs[i]! - mx) ** 2;
  });
  return den === 0 ? NaN : num / den;
}

export interface SoakVerdict {
  /** Samples at or before this (ms after start) are the warm-up: not in the slopes. */
  warmupMs: number;
  /** Length of the first and last windows compared for p99. */
  windowMs: number;
  slopes: Record<string, number>;
  p99: { first: number; last: number; ratio: number };
}

/** p99 of every latency of a set of samples. */
const p99Of = (samples: readonly SoakSample[]) =>
  Math.round(
    percentile(
      samples.flatMap((s) => s.latencies).sort((a, b) => a - b),
      99,
    ),
  );

/**
 * The verdict over `samples` of a run of `durationMs`: warm-up and windows are 10 minutes, or a
 * sixth and a third of a shorter run.
 */
export function judgeSoak(samples: readonly SoakSample[], durationMs: number): SoakVerdict {
  const warmupMs = Math.min(600_000, durationMs / 6);
  const windowMs = Math.min(600_000, durationMs / 3);
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.rssMiB)))];
  const slopes = Object.fromEntries(
    names.map((n) => [
      n,
      Number(
        slopePerHour(
          samples
            .filter((s) => s.tMs > warmupMs && s.rssMiB[n] !== undefined)
            .map((s) => ({ tMs: s.tMs, v: s.rssMiB[n]! })),
        ).toFixed(1),
      ),
    ]),
  );
  const end = samples.at(-1)?.tMs ?? 0;
  const first = p99Of(samples.filter((s) => s.tMs <= windowMs));
  const last = p99Of(samples.filter((s) => s.tMs > end - windowMs));
  return {
    warmupMs,
    windowMs,
    slopes,
    p99: { first, last, ratio: Number((last / first).toFixed(2)) },
  };
}

/** The samples as a markdown table: minute, load, rate, p50/p99, RSS of each process. */
export function formatSamples(samples: readonly SoakSample[]): string {
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.rssMiB)))];
  return [
    `| t (min) | load | orders closed | orders/s | p50 / p99 ms | ${names.map((n) => `${n} RSS MiB`).join(' | ')} |`,
    `|---|---|---|---|---|${names.map(() => '---').join('|')}|`,
    ...samples.map(
      (s) =>
        `| ${(s.tMs / 60_000).toFixed(1)} | ${s.load} | ${s.orders} | ${s.perSecond} | ${s.p50} / ${s.p99} | ${names.map((n) => s.rssMiB[n] ?? '–').join(' | ')} |`,
    ),
  ].join('\n');
}
