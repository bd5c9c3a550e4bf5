import { spawn, type SpawnOptions } from 'node:child_process';
import { openSync, closeSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { isProcessAlive } from '../../src/util/process-alive';
import { waitFor } from '../../src/util/wait';

export interface ServiceProcessOptions {
  name: string;
  command: string;
  args: string[];
  /** stdout and stderr are appended here. */
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  uid?: number;
  gid?: number;
}

/**
 * Starts a long-running service in its own process group, with output to a log file, and
 * unref'd so the parent may exit while the stack keeps running (`npm run stack`, demo).
 * Returns the pid; stopping is by pid (see stopProcessGroup), which also works from another
 * process that only knows the pid from the state file.
 */
export function spawnService(options: ServiceProcessOptions): number {
  mkdirSync(dirname(options.logFile), { recursive: true });
  const fd = openSync(options.logFile, 'a');
  try {
    const spawnOptions: SpawnOptions = {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: ['ignore', fd, fd],
      uid: options.uid,
      gid: options.gid,
    };
    const child = spawn(options.command, options.args, spawnOptions);
    if (child.pid === undefined)
      throw new Error(`${options.name}: could not start ${options.command}`);
    child.on('error', () => undefined);
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/** True when a process with this pid exists (src/util/process-alive.ts owns the rule). */
export const isAlive = isProcessAlive;

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

/**
 * Asks a service's process group to stop with `signal`, waits up to `graceMs`, then kills
 * the group. Resolves once the leader is gone.
 */
export async function stopProcessGroup(
  pid: number,
  signal: NodeJS.Signals = 'SIGTERM',
  graceMs = 15_000,
): Promise<void> {
  if (!isAlive(pid)) return;
  signalGroup(pid, signal);
  try {
    await waitFor(() => !isAlive(pid), {
      timeoutMs: graceMs,
      intervalMs: 100,
      what: `pid ${pid} to exit`,
    });
  } catch {
    signalGroup(pid, 'SIGKILL');
    await waitFor(() => !isAlive(pid), {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: `pid ${pid} to die`,
    });
  }
}

/** Synchronous last resort for process 'exit' handlers, where nothing async runs. */
export function killGroupNow(pid: number): void {
  signalGroup(pid, 'SIGKILL');
}

/** A service process ended while the stack waited for it. */
export class ServiceExitedError extends Error {
  override readonly name = 'ServiceExitedError';
}

/**
 * `ready`, or a ServiceExitedError as soon as the process is gone: a service that dies at
 * start (a bad config, a port taken meanwhile) fails the start in a second, with its name,
 * instead of at the end of the readiness deadline.
 */
export async function readyWhileAlive<T>(pid: number, name: string, ready: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const exited = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      if (!isAlive(pid))
        reject(new ServiceExitedError(`${name} (pid ${pid}) exited; see ${name}.log`));
    }, 250);
  });
  try {
    return await Promise.race([ready, exited]);
  } finally {
    clearInterval(timer);
  }
}
