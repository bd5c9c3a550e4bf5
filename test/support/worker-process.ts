import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { waitFor } from '../../src/util/wait';
import type { OrderEnv } from './order-env';
import { uniqueName } from './services';
import { workflowBundle } from './workflow-bundle';

/** A worker child process of a test, with its output kept for failure messages. */
export interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  /** Sends `signal` and resolves when the process has exited. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

let bundlePath: string | undefined;

/**
 * Starts test/support/order-worker-process.ts for `env` and waits until it polls; `extraEnv`
 * adds settings (ORDERS_EVENTS_TOPIC) and test switches (ORDER_TEST_HOLD_PUBLISH).
 */
export async function spawnOrderWorker(
  env: OrderEnv,
  extraEnv: Record<string, string> = {},
): Promise<WorkerProcess> {
  if (!bundlePath) {
    bundlePath = join(tmpdir(), `${uniqueName('onceflow-bundle')}.js`);
    writeFileSync(bundlePath, (await workflowBundle()).code);
    const path = bundlePath;
    process.once('exit', () => rmSync(path, { force: true }));
  }
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', resolve(__dirname, 'order-worker-process.ts')],
    {
      env: {
        ...process.env,
        TEMPORAL_TASK_QUEUE: env.taskQueue,
        PROVIDERS_URL: env.providers.url,
        ORDER_TEST_SCHEMA: env.db.schema,
        ORDER_TEST_BUNDLE: bundlePath,
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await waitFor(() => out.includes('worker-ready') || child.exitCode !== null, {
    timeoutMs: 60_000,
    what: 'the worker process to poll',
  });
  if (child.exitCode !== null) throw new Error(`worker process exited early:\n${out}`);
  return {
    child,
    output: () => out,
    stop: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
