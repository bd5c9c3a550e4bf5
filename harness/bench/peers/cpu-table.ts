/**
 * bench:peers' CPU table: which processes a system's orders are charged with, and the row
 * that sums them into the system's own processes and each shared service.
 */
import type { SystemProcess } from './processes';

/**
 * The process trees whose CPU a system's orders cost: its own processes, the providers, and
 * the stack's shared services (Kafka, PostgreSQL, the Temporal server) under their stack
 * names, so every system's row has the same shared columns (a service it does not use costs
 * it about nothing).
 */
export function cpuRoots(
  processes: SystemProcess[],
  stackPids: Partial<Record<string, number>>,
): Record<string, number> {
  const roots: Record<string, number> = {};
  for (const [name, pid] of Object.entries(stackPids)) if (pid) roots[name] = pid;
  for (const p of processes) if (!p.shared) roots[p.name] = p.pid;
  return roots;
}

/** CPU ms per order: the system's own processes, then each shared group, then the total. */
export function cpuColumns(cpu: Record<string, number>): string[] {
  const sum = (names: string[]) => names.reduce((s, n) => s + (cpu[n] ?? 0), 0).toFixed(1);
  const names = Object.keys(cpu).filter((n) => n !== 'total');
  const group = (re: RegExp) => names.filter((n) => re.test(n));
  const own = names.filter(
    (n) => !/^(kafka|postgres|temporal|schema-registry|codec)|-providers$/.test(n),
  );
  return [
    `${sum(own)} (${own.map((n) => `${n} ${cpu[n]}`).join(', ')})`,
    sum(group(/^kafka/)),
    sum(group(/^postgres/)),
    sum(group(/^temporal/)),
    sum(group(/-providers$/)),
    String(cpu.total ?? 0),
  ];
}
