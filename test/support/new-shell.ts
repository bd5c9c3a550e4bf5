import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { CONFIG_KEYS } from '../../src/config';

const ROOT = resolve(__dirname, '..', '..');

/** Variables a shell may carry that would name services, keys or onceflow settings. */
const ONCEFLOW_LIKE =
  /^(ONCEFLOW_|TEMPORAL_|KAFKA_|DATABASE_|PG|PROVIDERS_|BRIDGE_|WORKER_|CODEC_SERVER_|LEDGER_|ORDER_|CUSTOMER_ID_)/;

/**
 * A new shell: the runner's environment (which names the stack's services and key) with every
 * onceflow, Temporal, Kafka and database variable, and npm's own, removed. Only a moved state
 * folder is kept, as a developer who moved it would have it in their profile; `extra` is added.
 */
export function newShell(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = cleanShell();
  if (process.env.ONCEFLOW_STATE_DIR) env.ONCEFLOW_STATE_DIR = process.env.ONCEFLOW_STATE_DIR;
  return { ...env, ...extra };
}

/** A new shell with no onceflow-like variable at all, not even a moved state folder. */
export function cleanShell(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (ONCEFLOW_LIKE.test(name) || CONFIG_KEYS.includes(name) || name === 'NODE_ENV') continue;
    // What `npm test` itself exports (npm_config_*, npm_lifecycle_*) is not in a new shell either.
    if (/^npm_/i.test(name) || name === 'INIT_CWD') continue;
    env[name] = value;
  }
  return env;
}

export interface ShellRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface LineOptions {
  /** Working folder; default the repository root. */
  cwd?: string;
  /** `bash -lc` (a login shell, as a terminal opens one) instead of `bash -c`. */
  login?: boolean;
}

/** A command line, run by bash in `env`; its own process group, so stopping it stops npm, tsx and node together. */
export function startLine(
  line: string,
  env: NodeJS.ProcessEnv,
  options: LineOptions = {},
): { child: ChildProcess; out: ShellRun } {
  const child = spawn('bash', [options.login ? '-lc' : '-c', line], {
    cwd: options.cwd ?? ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: ShellRun = { code: null, stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (out.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out.stderr += d.toString()));
  return { child, out };
}

/** Runs a command line to its end (killed with its process group after `timeoutMs`). */
export function runLine(
  line: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 120_000,
  options: LineOptions = {},
): Promise<ShellRun> {
  const { child, out } = startLine(line, env, options);
  return new Promise((done, fail) => {
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ ...out, code });
    });
  });
}
