import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pickAnyPort, pickPort } from '../stack/ports';
import { waitFor } from '../../src/util/wait';

const ROOT = resolve(__dirname, '..', '..');

export interface Component {
  name: string;
  child: ChildProcess;
  logFile: string;
}

/**
 * Starts one of onceflow's entry points (`src/...ts`) as its own process, as a user would
 * with npm run, with output appended to `<logs>/demo-<name>.log`. `entry` is a source file
 * run through tsx (development), or the whole argv after `node`: the benches pass the
 * production command line (`productionArgs`).
 */
export function startComponent(
  name: string,
  entry: string | string[],
  env: NodeJS.ProcessEnv,
  logs: string,
): Component {
  const argv = typeof entry === 'string' ? ['--import', 'tsx', resolve(ROOT, entry)] : entry;
  mkdirSync(logs, { recursive: true });
  const logFile = join(logs, `demo-${name}.log`);
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(process.execPath, argv, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', fd, fd],
    });
    return { name, child, logFile };
  } finally {
    closeSync(fd);
  }
}

/** SIGTERM (graceful shutdown of every entry point), then wait for the exit. */
export async function stopComponent(component: Component): Promise<number | null> {
  const { child } = component;
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  child.kill('SIGTERM');
  return exited;
}

/** Waits for an HTTP endpoint of a component to answer, failing early if the process died. */
export async function waitForHttp(
  component: Component,
  url: string,
  timeoutMs = 60_000,
): Promise<void> {
  await waitFor(
    async () => {
      if (component.child.exitCode !== null) {
        throw new Error(
          `${component.name} exited with ${component.child.exitCode}; see ${component.logFile}`,
        );
      }
      const res = await fetch(url);
      return res.status < 500;
    },
    { timeoutMs, what: `${component.name} at ${url}` },
  );
}

/** Where the demo's and chaos's processes listen, and the environment that tells them. */
export interface PipelineEndpoints {
  /** Base URL of the sandbox providers. */
  providersUrl: string;
  /** The bridge's Prometheus endpoint: it answers once the bridge is up. */
  metricsUrl: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Free ports for the sandbox providers (4010 when free) and the bridge's metrics (9464 when
 * free), and the stack's environment pointing at them.
 *
 * `restarted: true` (chaos, which kills and restarts these processes) takes ports the OS
 * chooses instead of the well-known ones: while a killed process is down, another process on
 * the machine that prefers 4010 or 9464 (another checkout's demo) may take its port, and the
 * run's workers would then call a stranger's providers, or the restart fail. Default: false.
 */
export async function pickPipelineEndpoints(
  stackEnv: NodeJS.ProcessEnv,
  { restarted = false }: { restarted?: boolean } = {},
): Promise<PipelineEndpoints> {
  const taken = new Set<number>();
  const pick = (preferred: number) => (restarted ? pickAnyPort(taken) : pickPort(preferred, taken));
  const providersUrl = `http://127.0.0.1:${await pick(4010)}`;
  const metricsUrl = `http://127.0.0.1:${await pick(9464)}/metrics`;
  return {
    providersUrl,
    metricsUrl,
    env: {
      ...stackEnv,
      PROVIDERS_URL: providersUrl,
      BRIDGE_METRICS_PORT: new URL(metricsUrl).port,
    },
  };
}
