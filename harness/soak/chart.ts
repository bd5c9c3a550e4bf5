/**
 * The soak's chart: three panels over the run's minutes, drawn as SVG by this code (no
 * dependency, no browser): orders completed per second against the rate published, p50 and
 * p99 latency, and each process's resident memory.
 */
import type { SoakSample } from './samples';

const W = 960;
const PANEL_H = 210;
const M = { left: 70, right: 190, top: 40, gap: 56 };
const COLORS = [
  '#1f6feb',
  '#d97706',
  '#16a34a',
  '#9333ea',
  '#dc2626',
  '#0891b2',
  '#65a30d',
  '#6b7280',
];

interface Series {
  name: string;
  points: Array<{ tMs: number; v: number }>;
  dashed?: boolean;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A round upper bound for an axis (1, 2 or 5 times a power of ten). */
function niceMax(v: number): number {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5, 10].map((m) => m * p).find((c) => c >= v)!;
}

function panel(
  title: string,
  unit: string,
  series: Series[],
  top: number,
  endMs: number,
): string[] {
  const x0 = M.left;
  const w = W - M.left - M.right;
  const values = series.flatMap((s) => s.points.map((p) => p.v)).filter(Number.isFinite);
  const yMax = niceMax(Math.max(0, ...values) * 1.05);
  const x = (tMs: number) => x0 + (tMs / endMs) * w;
  const y = (v: number) => top + PANEL_H - (v / yMax) * PANEL_H;
  const out = [
    `<text x="${x0}" y="${top - 10}" font-size="14" font-weight="bold">${esc(title)}</text>`,
    `<rect x="${x0}" y="${top}" width="${w}" height="${PANEL_H}" fill="none" stroke="#999"/>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = (yMax * i) / 4;
    out.push(
      `<line x1="${x0}" x2="${x0 + w}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>`,
      `<text x="${x0 - 6}" y="${y(v) + 4}" font-size="11" text-anchor="end">${Number(v.toPrecision(3))}</text>`,
    );
  }
  out.push(
    `<text x="${x0 - 50}" y="${top + PANEL_H / 2}" font-size="11" transform="rotate(-90 ${x0 - 50} ${top + PANEL_H / 2})" text-anchor="middle">${esc(unit)}</text>`,
  );
  const minutes = endMs / 60_000;
  const step = niceMax(minutes / 8);
  for (let m = 0; m <= minutes + 1e-9; m += step)
    out.push(
      `<text x="${x(m * 60_000)}" y="${top + PANEL_H + 14}" font-size="11" text-anchor="middle">${Number(m.toFixed(1))}</text>`,
    );
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const pts = s.points.filter((p) => Number.isFinite(p.v));
    if (pts.length > 0)
      out.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''} points="${pts.map((p) => `${x(p.tMs).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ')}"/>`,
      );
    out.push(
      `<rect x="${x0 + w + 12}" y="${top + 6 + i * 18}" width="12" height="12" fill="${color}"/>`,
      `<text x="${x0 + w + 30}" y="${top + 16 + i * 18}" font-size="12">${esc(s.name)}</text>`,
    );
  });
  return out;
}

/** The SVG of a soak's samples; `rate` is the orders/s it published. */
export function renderSoakChart(
  samples: readonly SoakSample[],
  o: { title: string; rate: number; durationMs: number },
): string {
  const endMs = Math.max(o.durationMs, samples.at(-1)?.tMs ?? 0);
  const at = (pick: (s: SoakSample) => number) => samples.map((s) => ({ tMs: s.tMs, v: pick(s) }));
  const processes = [...new Set(samples.flatMap((s) => Object.keys(s.rssMiB)))];
  const tops = [0, 1, 2].map((i) => M.top + 20 + i * (PANEL_H + M.gap));
  const H = tops[2]! + PANEL_H + 40;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${M.left}" y="22" font-size="15">${esc(o.title)}</text>`,
    ...panel(
      'orders completed per second',
      'orders/s',
      [
        { name: 'completed', points: at((s) => s.perSecond) },
        { name: 'published', points: at(() => o.rate), dashed: true },
      ],
      tops[0]!,
      endMs,
    ),
    ...panel(
      'latency, event sent → run closed',
      'ms',
      [
        { name: 'p99', points: at((s) => s.p99) },
        { name: 'p50', points: at((s) => s.p50) },
      ],
      tops[1]!,
      endMs,
    ),
    ...panel(
      'resident memory (minutes since start below)',
      'MiB',
      processes.map((p) => ({ name: p, points: at((s) => s.rssMiB[p] ?? NaN) })),
      tops[2]!,
      endMs,
    ),
    '</svg>',
    '',
  ].join('\n');
}
