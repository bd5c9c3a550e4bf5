import { loadavg } from 'node:os';
import type { DrainResult, RateFigure } from './drain';
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

function cpuCells(f: RateFigure): string {
  const byColumn: Record<string, number> = {};
  for (const [p, ms] of Object.entries(f.cpuMsPerItem))
    byColumn[columnOf(p)] = (byColumn[columnOf(p)] ?? 0) + ms;
  return PROCESSES.map((p) =>
    byColumn[p] === undefined ? '–' : String(Number(byColumn[p].toFixed(1))),
  ).join(' | ');
}

function historyRow(run: string, h: HistoryShape): string {
  const spread = h.events.min === h.events.max ? '' : ` (${h.events.min}–${h.events.max})`;
  const types = Object.entries(h.byType)
    .map(([t, n]) => `${t} ${n}`)
    .join(', ');
  return `| ${run} | ${h.runs} | ${h.events.typical}${spread} | ${h.workflowTasks} | ${types} |`;
}

/** The drain and its floor as a markdown table, figures and ratios (onceflow / floor). */
export function formatDrain(r: DrainResult): string {
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  return [
    `backlog drain of ${r.orders} orders (6 partitions) and the floor on the same server; load average now ${load}`,
    '',
    `| run | per second | seconds | CPU ms per item: ${PROCESSES.join(' | ')} |`,
    `|---|---|---|${PROCESSES.map(() => '---').join('|')}|`,
    `| onceflow drain (orders) | ${r.drain.perSecond} | ${r.drain.seconds} | ${cpuCells(r.drain)} |`,
    `| floor: empty workflow | ${r.floorEmpty.perSecond} | ${r.floorEmpty.seconds} | ${cpuCells(r.floorEmpty)} |`,
    `| floor: 3 no-op activities | ${r.floorThreeActivities.perSecond} | ${r.floorThreeActivities.seconds} | ${cpuCells(r.floorThreeActivities)} |`,
    '',
    `ratio onceflow / floor: ${r.ratios.toEmpty} of the empty workflow, ${r.ratios.toThreeActivities} of three no-op activities`,
    '',
    '| history of a completed run | runs read | events (min–max) | workflow tasks | events by type |',
    '|---|---|---|---|---|',
    historyRow('onceflow order', r.histories.order),
    historyRow('onceflow payout', r.histories.payout),
    historyRow('floor: 3 no-op activities', r.histories.floorThreeActivities),
    `peak RSS (VmHWM) in the drain: worker ${r.drain.peakRssMiB.worker} MiB, bridge ${r.drain.peakRssMiB.bridge} MiB`,
    ...(r.profiles ? [`CPU profiles (--cpu-prof) of worker and bridge: ${r.profiles}`] : []),
    '(the floor\'s worker runs inside the bench process: its CPU is in "bench")',
  ].join('\n');
}
