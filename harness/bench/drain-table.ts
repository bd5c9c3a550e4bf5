import type { DrainResult } from './drain';
import type { RateFigure } from './floor';
import type { HistoryShape } from './history-shape';

const PROCESSES = [
  'bridge',
  'worker',
  'temporal',
  'kafka',
  'postgres',
  'providers',
  'bench',
  'total',
] as const;

/**
 * The table's column of a stack process: the three brokers and their controller are `kafka`,
 * the real server's Web UI is `temporal` (the dev server serves its UI itself).
 */
export function columnOf(process: string): string {
  if (process.startsWith('kafka')) return 'kafka';
  if (process === 'temporal-ui') return 'temporal';
  return process;
}

/** CPU ms per item by the table's columns. */
export function byColumn(f: Pick<RateFigure, 'cpuMsPerItem'>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [p, ms] of Object.entries(f.cpuMsPerItem))
    out[columnOf(p)] = (out[columnOf(p)] ?? 0) + ms;
  return out;
}

function cpuCells(f: RateFigure): string {
  const cols = byColumn(f);
  return PROCESSES.map((p) =>
    cols[p] === undefined ? '–' : String(Number(cols[p].toFixed(1))),
  ).join(' | ');
}

/** `+3.2` / `-1.0` / `0`: a figure's total against a reference's. */
function delta(f: RateFigure, ref: RateFigure | undefined): string {
  if (!ref) return '–';
  const d = Number(((f.cpuMsPerItem.total ?? 0) - (ref.cpuMsPerItem.total ?? 0)).toFixed(1));
  return d > 0 ? `+${d}` : String(d);
}

const load = (f: RateFigure) =>
  f.load ? `${f.load.before.toFixed(1)} → ${f.load.after.toFixed(1)}` : '–';

function historyRow(run: string, h: HistoryShape | undefined): string[] {
  if (!h) return [];
  const spread = h.events.min === h.events.max ? '' : ` (${h.events.min}–${h.events.max})`;
  const types = Object.entries(h.byType)
    .map(([t, n]) => `${t} ${n}`)
    .join(', ');
  return [`| ${run} | ${h.runs} | ${h.events.typical}${spread} | ${h.workflowTasks} | ${types} |`];
}

/** The tables a drained order writes into, before and after (every drain's when prefilled). */
function sizeRows(r: DrainResult): string[] {
  const drains = r.prefill > 0 ? r.drains : r.drains.slice(0, 1);
  return [
    '| drain | table | rows before → after | table MiB before → after | indexes MiB before → after |',
    '|---|---|---|---|---|',
    ...drains.flatMap((d) =>
      d.sizes.before.map((b) => {
        const a = d.sizes.after.find((s) => s.table === b.table) ?? b;
        return `| ${d.variant} | ${b.table} | ${b.rows} → ${a.rows} | ${b.tableMiB} → ${a.tableMiB} | ${b.indexesMiB} → ${a.indexesMiB} |`;
      }),
    ),
    '',
  ];
}

/**
 * The drains (one row per variant, its CPU against the first drain's), the floor and its
 * ladder (each rung against the three-activity floor), the histories and the table sizes, as
 * markdown. The load average (1 minute) before and after is beside every figure: on a shared
 * machine a figure taken under load measures the load.
 */
export function formatDrain(r: DrainResult): string {
  const first = r.drains[0];
  const floor = r.ladder.find((l) => l.rung === 'floor');
  const cols = PROCESSES.join(' | ');
  return [
    `backlog drain of ${r.orders} orders (6 partitions)${r.prefill > 0 ? ` over ${r.prefill} prefilled rows per growing table` : ''}, then the floor on the same server; CPU ms per order (or workflow)`,
    '',
    `| drain variant | load before → after | orders/s | seconds | ${cols} | Δ total | ratio to floor | peak RSS worker / bridge MiB |`,
    `|---|---|---|---|${PROCESSES.map(() => '---').join('|')}|---|---|---|`,
    ...r.drains.map(
      (d) =>
        `| ${d.variant} | ${load(d)} | ${d.perSecond} | ${d.seconds} | ${cpuCells(d)} | ${d === first ? '' : delta(d, first)} | ${r.ratios[d.variant] ?? '–'} | ${d.peakRssMiB.worker} / ${d.peakRssMiB.bridge || '–'} |`,
    ),
    '',
    `| floor rung | load before → after | workflows/s | seconds | ${cols} | Δ total over the floor | events |`,
    `|---|---|---|---|${PROCESSES.map(() => '---').join('|')}|---|---|`,
    ...r.ladder.map(
      (l) =>
        `| ${l.rung}: ${l.what} | ${load(l)} | ${l.perSecond} | ${l.seconds} | ${cpuCells(l)} | ${l.rung === 'empty' || l.rung === 'floor' ? '' : delta(l, floor)} | ${l.history.events.typical} |`,
    ),
    '',
    '| history of a completed run | runs read | events (min–max) | workflow tasks | events by type |',
    '|---|---|---|---|---|',
    ...historyRow('onceflow order', first?.histories.order),
    ...historyRow('onceflow payout', first?.histories.payout),
    ...historyRow('floor: 3 no-op activities', floor?.history),
    '',
    ...sizeRows(r),
    ...(r.profiles ? [`CPU profiles (--cpu-prof) of worker and bridge: ${r.profiles}`] : []),
    '(the floor\'s worker runs inside the bench process: its CPU is in "bench"; so are the direct variants\' starts)',
  ].join('\n');
}
