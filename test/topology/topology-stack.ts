import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { stackPaths, stackPathsSharingInstalls, type StackPaths } from '../../harness/stack/paths';
import { isAlive } from '../../harness/stack/processes';
import { isPortFree } from '../../harness/stack/ports';
import { startStack, stopStack, type RunningStack } from '../../harness/stack/stack';

/**
 * A second stack for one topology test, beside the one the test runner started: its own
 * state folder (wiped first, so every run exercises a first start: initdb, schemas, KRaft
 * format, namespace registration), the runner's installed binaries and jars, and the
 * runner's services for whatever the test does not start itself (named in `env`).
 */
export async function startTopologyStack(
  name: string,
  env: NodeJS.ProcessEnv,
): Promise<RunningStack> {
  const paths: StackPaths = stackPathsSharingInstalls(
    resolve(stackPaths().root, 'topology-tests', name),
  );
  await stopStack(paths); // a run that crashed may have left processes behind
  rmSync(paths.root, { recursive: true, force: true });
  const log = (m: string) => process.stdout.write(`      [${name} stack] ${m}\n`);
  // A first build of the Temporal server takes minutes on a small machine.
  return startStack({ paths, env, log, readyTimeoutMs: 240_000 });
}

/** The runner's environment without the named services, so the test stack starts its own. */
export function envWithout(
  names: ('TEMPORAL_ADDRESS' | 'TEMPORAL_UI_URL' | 'KAFKA_BROKERS' | 'DATABASE_URL')[],
  extra: NodeJS.ProcessEnv,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const n of names) delete env[n];
  return env;
}

/** After stop(): the processes and ports the stack recorded that are still alive or bound. */
export async function leftoversOf(stack: RunningStack): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, pid] of Object.entries(stack.state.pids)) {
    if (pid !== undefined && isAlive(pid)) problems.push(`${name} (pid ${pid}) still running`);
  }
  for (const port of stack.state.ports) {
    if (!(await isPortFree(port))) problems.push(`port ${port} still in use`);
  }
  return problems;
}

/** The KafkaJS error type of an error or any of its causes (`NOT_ENOUGH_REPLICAS`, ...). */
export function kafkaErrorTypes(err: unknown): string[] {
  const types: string[] = [];
  let current: unknown = err;
  for (let depth = 0; current && depth < 8; depth++) {
    const e = current as { type?: unknown; cause?: unknown; originalError?: unknown };
    if (typeof e.type === 'string') types.push(e.type);
    current = e.cause ?? e.originalError;
  }
  return types;
}
