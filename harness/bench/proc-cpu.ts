/**
 * CPU seconds and peak RSS of the stack's processes, read from /proc (Linux), so `npm run
 * bench` can say what each process spends per order. A process's own utime+stime plus what
 * its exited, waited-for children spent (cutime+cstime), plus its live descendants: Postgres
 * forks a backend per connection, and the JVM and Node run threads, which /proc counts in the
 * process.
 */
import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime, ticks. */
  own: number;
  /** cutime + cstime (waited-for children), ticks. */
  children: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): ppid = field 4, utime..cstime = fields 14..17.
    return {
      pid,
      ppid: Number(fields[1]),
      own: Number(fields[11]) + Number(fields[12]),
      children: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return undefined; // exited between the listing and the read
  }
}

function allStats(): ProcStat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((s): s is ProcStat => s !== undefined);
}

/** The live descendants of `pid` in `stats` (children, grandchildren, ...). */
function descendantsIn(stats: ProcStat[], pid: number): ProcStat[] {
  const byParent = new Map<number, ProcStat[]>();
  for (const s of stats) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  const out: ProcStat[] = [];
  const queue = [...(byParent.get(pid) ?? [])];
  while (queue.length > 0) {
    const s = queue.shift()!;
    out.push(s);
    queue.push(...(byParent.get(s.pid) ?? []));
  }
  return out;
}

/** `pid` and its live descendants (Postgres's backends, a Temporal server's children). */
export function processTree(pid: number): number[] {
  return [pid, ...descendantsIn(allStats(), pid).map((s) => s.pid)];
}

/** CPU seconds so far of each named process tree (the root, its waited children, live descendants). */
export function cpuSeconds(roots: Record<string, number>): Record<string, number> {
  const stats = allStats();
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(roots)) {
    const root = stats.find((s) => s.pid === pid);
    if (!root) continue;
    const ticks = descendantsIn(stats, pid).reduce(
      (sum, s) => sum + s.own,
      root.own + root.children,
    );
    out[name] = ticks / TICKS_PER_SECOND;
  }
  return out;
}

/** CPU seconds spent by each process tree between two cpuSeconds() readings. */
export function cpuDelta(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, end] of Object.entries(after)) out[name] = end - (before[name] ?? 0);
  return out;
}

/** Peak resident set (VmHWM) of a running process, in MiB; 0 if it is gone. */
export function peakRssMiB(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmHWM:'));
    return Number(line?.split(/\s+/)[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** `n` to `digits` decimals, as a number. */
export const round = (n: number, digits = 1) => Number(n.toFixed(digits));

/** CPU seconds per process → CPU ms per item per process, plus `total`. */
export function perItem(cpu: Record<string, number>, items: number): Record<string, number> {
  const out: Record<string, number> = {};
  let total = 0;
  for (const [name, seconds] of Object.entries(cpu)) {
    out[name] = round((seconds * 1000) / items);
    total += seconds;
  }
  out.total = round((total * 1000) / items);
  return out;
}

/** This process's own CPU seconds (the producer, the poller and the floor's worker). */
export const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/**
 * Resolves once the named process trees together use less than `maxCores` of CPU over one
 * `windowMs`, or after `timeoutMs` (then says so on stderr and resolves anyway: a busy shared
 * machine must not fail the bench). A timed phase starts on a quiet stack this way, not while
 * the server still works off the previous phase (the terminations of its workflows, their
 * visibility updates), which would be charged to the next phase.
 */
export async function waitForQuietCpu(
  roots: Record<string, number>,
  { maxCores = 0.15, windowMs = 1000, timeoutMs = 60_000 } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let before = cpuSeconds(roots);
  for (;;) {
    // Sampling, not synchronisation: CPU use is only defined over a window of time.
    await new Promise((r) => setTimeout(r, windowMs));
    const after = cpuSeconds(roots);
    const used = Object.values(cpuDelta(before, after)).reduce((s, v) => s + v, 0);
    if (used / (windowMs / 1000) < maxCores) return;
    if (Date.now() > deadline) {
      process.stderr.write(
        `stack still busy (${(used / (windowMs / 1000)).toFixed(2)} cores) after ${timeoutMs / 1000} s; measuring anyway\n`,
      );
      return;
    }
    before = after;
  }
}
