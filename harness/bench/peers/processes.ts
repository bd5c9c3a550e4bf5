import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PEERS_DIR = __dirname;
export const ROOT = resolve(__dirname, '..', '..', '..');

/** A process a system runs: own (started here, stopped here) or shared (the stack's). */
export interface SystemProcess {
  name: string;
  pid: number;
  child?: ChildProcess;
  logFile?: string;
  /** The stack's Temporal dev server: shared with other users of the stack, never stopped here. */
  shared?: boolean;
}

/** Starts a command with output appended to `<logs>/peers-<name>.log`. */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; logs: string; cwd?: string },
): SystemProcess {
  mkdirSync(options.logs, { recursive: true });
  const logFile = join(options.logs, `peers-${name}.log`);
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', fd, fd],
    });
    return { name, pid: child.pid!, child, logFile };
  } finally {
    closeSync(fd);
  }
}

/** A TypeScript entry point under node with tsx (and any extra `--import`s after it). */
export function startNodeProcess(
  name: string,
  entry: string,
  options: { env: NodeJS.ProcessEnv; logs: string; imports?: string[] },
): SystemProcess {
  // tsx first, so later imports may be TypeScript too.
  const imports = ['tsx', ...(options.imports ?? [])].flatMap((m) => ['--import', m]);
  return startProcess(name, process.execPath, [...imports, resolve(ROOT, entry)], options);
}

/** Throws when an own process has exited. */
export function assertAlive(processes: SystemProcess[]): void {
  const dead = processes.find((p) => p.child && p.child.exitCode !== null);
  if (dead)
    throw new Error(`${dead.name} exited with ${dead.child!.exitCode}; see ${dead.logFile}`);
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
export async function stopProcess(p: SystemProcess, graceMs = 15_000): Promise<void> {
  const child = p.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`));
    return Number(line?.split(/\s+/)[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Peak resident memory per process while a system runs: VmHWM (the kernel's own high-water
 * mark) for processes started here; sampled VmRSS for the shared dev server, whose lifetime
 * peak predates this run.
 */
export class RssSampler {
  private readonly peakKiB = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly processes: () => SystemProcess[]) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), 500);
  }

  sample(): void {
    for (const p of this.processes()) {
      if (p.child && p.child.exitCode !== null) continue;
      const kib = statusKiB(p.pid, p.shared ? 'VmRSS' : 'VmHWM');
      this.peakKiB.set(p.name, Math.max(this.peakKiB.get(p.name) ?? 0, kib));
    }
  }

  /** Stops sampling; peak MiB per process name. */
  stop(): Record<string, number> {
    if (this.timer) clearInterval(this.timer);
    this.sample();
    return Object.fromEntries([...this.peakKiB].map(([n, kib]) => [n, Math.round(kib / 1024)]));
  }
}
