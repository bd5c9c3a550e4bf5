import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { BridgeHarness } from './bridge-harness';
import { logChildOutput } from './test-log';

const ROOT = resolve(__dirname, '..', '..');

/** `npm run bridge` as a real child process on the harness' topic, group, queue and schema. */
export function spawnBridge(
  h: BridgeHarness,
  env: NodeJS.ProcessEnv = {},
): ChildProcess & { output: () => string } {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', resolve(ROOT, 'src/kafka-bridge/main.ts')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        KAFKA_TOPICS: h.topic,
        KAFKA_GROUP_ID: h.groupId,
        TEMPORAL_TASK_QUEUE: h.taskQueue,
        DATABASE_SCHEMA: h.schema,
        BRIDGE_METRICS_PORT: '0',
        // No open-run caps: no worker runs these runs, so they never close (as in BridgeHarness).
        BRIDGE_MAX_OPEN_RUNS: '0',
        BRIDGE_MAX_OPEN_RUNS_PER_TENANT: '0',
        BRIDGE_MAX_OPEN_BACKGROUND_RUNS: '0',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  logChildOutput(child, 'bridge');
  return Object.assign(child, { output: () => output });
}

/** Resolves with the exit code (or the signal name) once the child has exited. */
export function exitOf(child: ChildProcess): Promise<number | string> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  if (child.signalCode !== null) return Promise.resolve(child.signalCode);
  return new Promise((done) => child.once('exit', (code, signal) => done(code ?? signal ?? -1)));
}
