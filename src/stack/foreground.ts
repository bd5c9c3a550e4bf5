import { redactUrl } from '../config';
import type { RunningStack } from './stack';

/** What a developer needs to connect to the stack, one service a line. */
export function describeStack(stack: RunningStack): string {
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

/**
 * Prints the stack and, when this process started it, keeps it up until Ctrl-C (or SIGTERM)
 * and then stops it; a stack that was already running is left to `npm run stack:stop`.
 */
export async function holdStackInForeground(stack: RunningStack): Promise<void> {
  process.stdout.write(`${describeStack(stack)}\n`);
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
