import { redactUrl } from '../config';
import { loadConfigOrExit } from '../config/load-or-exit';
import { prepareServices } from '../setup/prepare-services';
import { startStack, stopStack, type RunningStack } from './stack';

function describe(stack: RunningStack): string {
  const { env, versions } = stack.state;
  return [
    `Temporal      ${env.TEMPORAL_ADDRESS}`,
    `Temporal UI   ${env.TEMPORAL_UI_URL}`,
    `Kafka         ${env.KAFKA_BROKERS}`,
    `PostgreSQL    ${redactUrl(env.DATABASE_URL)}`,
    `keys          ${env.ONCEFLOW_ENCRYPTION_KEY_FILE ?? '(none)'}`,
    `codec server  ${stack.state.codecUrl ?? '(none)'}`,
    `versions      ${Object.entries(versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `logs          ${stack.paths.logs}`,
  ].join('\n');
}

/** Starts the stack and prepares it; exported for the demo and the test runner. */
export async function startPreparedStack(): Promise<RunningStack> {
  const stack = await startStack();
  Object.assign(process.env, stack.state.env);
  await prepareServices(loadConfigOrExit());
  return stack;
}

async function runForeground(): Promise<void> {
  const stack = await startPreparedStack();
  process.stdout.write(`${describe(stack)}\n`);
  if (!stack.owned) {
    process.stdout.write('(already running; `npm run stack:stop` stops it)\n');
    return;
  }
  process.stdout.write('stack is up; Ctrl-C stops it\n');
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  process.stdout.write('stopping the stack\n');
  await stack.stop();
}

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'start';
  if (command === 'start') return runForeground();
  if (command === 'stop') {
    const state = await stopStack();
    process.stdout.write(state ? 'stack stopped\n' : 'no stack was running\n');
    return;
  }
  throw new Error(`unknown command "${command}" (use start or stop)`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).message ?? String(err)}\n`);
    process.exit(1);
  });
}
