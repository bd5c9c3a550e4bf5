import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** One visibility sample, taken every second during the run. */
export interface Sample {
  tMs: number;
  completed: number;
  inFlight: number;
}

/** A fault as it actually happened (start and end relative to the run's start). */
export interface InjectedFault {
  kind: string;
  target: string;
  startMs: number;
  endMs: number;
  detail: string;
}

export interface ChaosReportData {
  run: string;
  seed: number;
  orders: number;
  durationMs: number;
  samples: Sample[];
  faults: InjectedFault[];
  /** Invariant (discrepancy class) → violations found by reconcile. */
  invariants: [string, number][];
  /** What reconcile read (describeRead), printed under the invariant table. */
  read: string;
  faultCounts: [string, number][];
  /** What the published stream held besides clean events (redeliveries, stale versions…). */
  streamDefects: [string, number][];
  /** The carts' breaches by the cart domain's invariants (a breakdown of `invariants`). */
  cartInvariants?: [string, number][];
  /** How the second workflows of resent orders ended (OrderStep counts). */
  secondRuns: [string, number][];
  exitCode: number;
}

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** Completed-per-second from cumulative completed counts (a 5 s window smooths the 1 s polls). */
export function ratePerSecond(samples: Sample[], windowMs = 5000): { tMs: number; v: number }[] {
  return samples.map((s, i) => {
    let j = i;
    while (j > 0 && s.tMs - samples[j - 1]!.tMs <= windowMs) j--;
    const first = samples[j]!;
    const dt = (s.tMs - first.tMs) / 1000;
    return { tMs: s.tMs, v: dt > 0 ? Math.max(0, (s.completed - first.completed) / dt) : 0 };
  });
}

function chart(
  title: string,
  points: { tMs: number; v: number }[],
  faults: InjectedFault[],
  endMs: number,
  color: string,
): string {
  const W = 900;
  const H = 220;
  const pad = { l: 50, r: 10, t: 24, b: 28 };
  const maxV = Math.max(1, ...points.map((p) => p.v));
  const x = (t: number) => pad.l + (t / Math.max(1, endMs)) * (W - pad.l - pad.r);
  const y = (v: number) => H - pad.b - (v / maxV) * (H - pad.t - pad.b);
  const line = points.map((p) => `${x(p.tMs).toFixed(1)},${y(p.v).toFixed(1)}`).join(' ');
  const marks = faults
    .map((f, i) => {
      // Staggered labels: faults close together would otherwise print over each other.
      const labelY = pad.t + 10 + (i % 5) * 11;
      const x0 = x(f.startMs);
      const w = Math.max(2, x(f.endMs) - x0);
      return (
        `<g class="fault-marker" data-kind="${esc(f.kind)}"><title>${esc(`${f.kind} ${f.target} ${f.detail}`)}</title>` +
        `<rect x="${x0.toFixed(1)}" y="${pad.t}" width="${w.toFixed(1)}" height="${H - pad.t - pad.b}" fill="#e4572e" opacity="0.18"/>` +
        `<line x1="${x0.toFixed(1)}" x2="${x0.toFixed(1)}" y1="${pad.t}" y2="${H - pad.b}" stroke="#e4572e"/>` +
        `<text x="${(x0 + 2).toFixed(1)}" y="${labelY}" font-size="9" fill="#a00">${esc(f.kind)}</text></g>`
      );
    })
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">` +
    `<text x="${pad.l}" y="14" font-size="13" font-weight="bold">${esc(title)}</text>` +
    `<line x1="${pad.l}" x2="${W - pad.r}" y1="${H - pad.b}" y2="${H - pad.b}" stroke="#888"/>` +
    `<line x1="${pad.l}" x2="${pad.l}" y1="${pad.t}" y2="${H - pad.b}" stroke="#888"/>` +
    `<text x="4" y="${pad.t + 8}" font-size="10">${Number.isInteger(maxV) ? maxV : maxV.toFixed(1)}</text>` +
    `<text x="4" y="${H - pad.b}" font-size="10">0</text>` +
    `<text x="${W - pad.r - 60}" y="${H - 8}" font-size="10">${(endMs / 1000).toFixed(0)} s</text>` +
    marks +
    `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${line}"/></svg>`
  );
}

function table(head: [string, string], rows: [string, number | string][]): string {
  const body = rows.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(String(v))}</td></tr>`);
  return `<table><tr><th>${head[0]}</th><th>${head[1]}</th></tr>${body.join('')}</table>`;
}

/** Writes the self-contained report (inline SVG and CSS; no scripts, fonts or fetches). */
export function writeChaosReport(file: string, d: ChaosReportData): void {
  const endMs = Math.max(d.durationMs, d.samples.at(-1)?.tMs ?? 0);
  const violations = d.invariants.reduce((s, [, n]) => s + n, 0);
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>onceflow chaos ${esc(d.run)}</title>
<style>body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:3px 10px;text-align:left}.ok{color:#070}.bad{color:#b00}</style></head><body>
<h1>onceflow chaos run ${esc(d.run)}</h1>
<p>seed ${d.seed}, ${d.orders} orders, ${(endMs / 1000).toFixed(0)} s.
Verdict: <b class="${violations === 0 && d.exitCode === 0 ? 'ok' : 'bad'}">${violations === 0 && d.exitCode === 0 ? 'all invariants hold' : `${violations} violation(s), exit ${d.exitCode}`}</b></p>
${chart('completed workflows / s', ratePerSecond(d.samples), d.faults, endMs, '#2e86ab')}
${chart(
  'in-flight workflows',
  d.samples.map((s) => ({ tMs: s.tMs, v: s.inFlight })),
  d.faults,
  endMs,
  '#6a4c93',
)}
<h2>Invariants (reconcile)</h2>${table(['invariant', 'violations'], d.invariants)}
<p>Reconcile ${esc(d.read)}.</p>
${d.cartInvariants ? `<h3>Carts, by the cart invariants (a breakdown of the classes above)</h3>${table(['invariant', 'violations'], d.cartInvariants)}` : ''}
<h2>Fault counts</h2>${table(['fault', 'count'], d.faultCounts)}
<h2>Stream</h2>${table(['published', 'count'], d.streamDefects)}
<h2>Second runs of an order</h2>${table(['workflows', 'count'], d.secondRuns)}
<h2>Injected faults</h2>${table(
    ['at', 'fault'],
    d.faults.map((f) => [
      `t+${(f.startMs / 1000).toFixed(1)} s … ${(f.endMs / 1000).toFixed(1)} s`,
      `${f.kind} ${f.target} ${f.detail}`,
    ]),
  )}
</body></html>
`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, html);
}
