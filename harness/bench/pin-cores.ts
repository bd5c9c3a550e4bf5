/**
 * `--pin-server`: the Temporal server's process tree on the first CPU, everything else (Kafka,
 * Postgres, the codec server, this bench and the bridge it spawns, which inherits the bench's
 * affinity) on the others, so the bench measures whether the bridge keeps up with the server
 * when it does not take the server's core: in production the server runs on its own hosts.
 * Set with util-linux's `taskset -a` (every thread of each process; threads and processes
 * started later inherit it); undone by the returned function.
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { processTree } from './proc-cpu';

/** The CPU lists of the split: `server` for the Temporal server, `rest` for everything else. */
export function coreSplit(cpuCount: number): { server: string; rest: string; all: string } {
  if (cpuCount < 2)
    throw new Error(`--pin-server needs at least 2 CPUs, this machine has ${cpuCount}`);
  return { server: '0', rest: `1-${cpuCount - 1}`, all: `0-${cpuCount - 1}` };
}

function pinTree(pid: number, cpuList: string): void {
  for (const p of processTree(pid)) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', cpuList, String(p)], { stdio: 'ignore' });
    } catch (err) {
      // A backend that exited between the listing and the call is not an error; a missing
      // taskset is.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        throw new Error('--pin-server needs taskset (util-linux)', { cause: err });
    }
  }
}

/**
 * Pins `serverPid`'s tree to the first CPU and `otherPids`' trees and this process to the
 * rest; returns the function that gives every one of them all CPUs again.
 */
export function pinServer(serverPid: number, otherPids: readonly number[]): () => void {
  const split = coreSplit(cpus().length);
  pinTree(serverPid, split.server);
  for (const pid of [...otherPids, process.pid]) pinTree(pid, split.rest);
  return () => {
    for (const pid of [serverPid, ...otherPids, process.pid]) pinTree(pid, split.all);
  };
}
