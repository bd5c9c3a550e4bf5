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

/** CPU seconds so far of each named process tree (the root, its waited children, live descendants). */
export function cpuSeconds(roots: Record<string, number>): Record<string, number> {
  const stats = allStats();
  const byParent = new Map<number, ProcStat[]>();
  for (const s of stats) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(roots)) {
    const root = stats.find((s) => s.pid === pid);
    if (!root) continue;
    let ticks = root.own + root.children;
    const queue = [...(byParent.get(pid) ?? [])];
    while (queue.length > 0) {
      const s = queue.shift()!;
      ticks += s.own;
      queue.push(...(byParent.get(s.pid) ?? []));
    }
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
