/**
 * An SVG of the comparison, drawn by our own code (no chart library): left, each system's
 * latency distribution (produced → completed) as an empirical CDF on a log-scaled time axis;
 * right, sustained orders/s and duplicates absorbed/s as bars.
 */
export interface ChartSeries {
  name: string;
  latencySamples: number[];
  ordersPerSecond: number;
  duplicatesPerSecond: number;
}

const COLORS = ['#1f6feb', '#d97706', '#16a34a', '#9333ea'];
const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderChart(series: ChartSeries[], title: string): string {
  const W = 960;
  const H = 420;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="15">${esc(title)}</text>`,
  ];
  // Left panel: CDF of latency, x log10(ms) from 10 ms to the largest sample.
  const L = { x: 60, y: 50, w: 480, h: 300 };
  const all = series.flatMap((s) => s.latencySamples).filter((v) => v > 0);
  const lo = 1;
  const hi = Math.max(2, Math.ceil(Math.log10(Math.max(100, ...all))));
  const xOf = (ms: number) => L.x + ((Math.log10(Math.max(10, ms)) - lo) / (hi - lo)) * L.w;
  const yOf = (q: number) => L.y + L.h - q * L.h;
  out.push(
    `<rect x="${L.x}" y="${L.y}" width="${L.w}" height="${L.h}" fill="none" stroke="#999"/>`,
  );
  for (let e = lo; e <= hi; e++) {
    const x = xOf(10 ** e);
    const label = 10 ** e >= 1000 ? `${10 ** e / 1000} s` : `${10 ** e} ms`;
    out.push(`<line x1="${x}" y1="${L.y}" x2="${x}" y2="${L.y + L.h}" stroke="#eee"/>`);
    out.push(`<text x="${x}" y="${L.y + L.h + 16}" text-anchor="middle">${label}</text>`);
  }
  for (const q of [0, 0.5, 0.95, 1]) {
    out.push(`<line x1="${L.x}" y1="${yOf(q)}" x2="${L.x + L.w}" y2="${yOf(q)}" stroke="#eee"/>`);
    out.push(
      `<text x="${L.x - 6}" y="${yOf(q) + 4}" text-anchor="end">p${Math.round(q * 100)}</text>`,
    );
  }
  out.push(
    `<text x="${L.x + L.w / 2}" y="${L.y + L.h + 34}" text-anchor="middle">produced → completed (log scale), at half of each system's sustained rate</text>`,
  );
  series.forEach((s, i) => {
    const sorted = s.latencySamples.slice().sort((a, b) => a - b);
    if (sorted.length === 0) return;
    const step = Math.max(1, Math.floor(sorted.length / 400));
    const pts: string[] = [];
    for (let k = 0; k < sorted.length; k += step)
      pts.push(`${xOf(sorted[k]!).toFixed(1)},${yOf((k + 1) / sorted.length).toFixed(1)}`);
    pts.push(`${xOf(sorted.at(-1)!).toFixed(1)},${yOf(1).toFixed(1)}`);
    const color = COLORS[i % COLORS.length]!;
    out.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.join(' ')}"/>`,
    );
    out.push(
      `<rect x="${L.x + 10}" y="${L.y + 10 + i * 18}" width="12" height="12" fill="${color}"/>`,
    );
    out.push(`<text x="${L.x + 28}" y="${L.y + 21 + i * 18}">${esc(s.name)}</text>`);
  });
  // Right panel: bars, each measure scaled to its own maximum.
  const R = { x: 600, y: 50, w: 330, h: 300 };
  const measures = [
    { label: 'sustained orders/s', get: (s: ChartSeries) => s.ordersPerSecond },
    { label: 'duplicates absorbed/s', get: (s: ChartSeries) => s.duplicatesPerSecond },
  ];
  const groupH = R.h / measures.length;
  measures.forEach((m, gi) => {
    const max = Math.max(1, ...series.map(m.get));
    const y0 = R.y + gi * groupH;
    out.push(`<text x="${R.x}" y="${y0 + 12}" font-weight="bold">${m.label}</text>`);
    const barH = Math.min(24, (groupH - 30) / Math.max(1, series.length));
    series.forEach((s, i) => {
      const v = m.get(s);
      const w = (v / max) * (R.w - 120);
      const y = y0 + 20 + i * (barH + 4);
      out.push(
        `<text x="${R.x + 60}" y="${y + barH * 0.7}" text-anchor="end">${esc(s.name)}</text>`,
      );
      out.push(
        `<rect x="${R.x + 66}" y="${y}" width="${w.toFixed(1)}" height="${barH}" fill="${COLORS[i % COLORS.length]}"/>`,
      );
      out.push(`<text x="${R.x + 70 + w}" y="${y + barH * 0.7}">${v}</text>`);
    });
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
