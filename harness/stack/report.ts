import { redactUrl } from '../../src/config';
import type { RunningStack } from './stack';
import { topologyOf } from './stack-state';

function describeTemporal(stack: RunningStack): string {
  const { temporal } = topologyOf(stack.state);
  if (stack.state.versions.temporal === 'external') return 'external';
  return temporal === 'server'
    ? 'server on PostgreSQL (ONCEFLOW_TEMPORAL=server)'
    : 'dev server (SQLite)';
}

/** What a developer needs to connect to the stack, one service a line. */
export function describeStack(stack: RunningStack): string {
  const { env, versions } = stack.state;
  const brokers = env.KAFKA_BROKERS.split(',').length;
  return [
    `Temporal      ${env.TEMPORAL_ADDRESS}  ${describeTemporal(stack)}`,
    `Temporal UI   ${env.TEMPORAL_UI_URL}`,
    `Kafka         ${env.KAFKA_BROKERS}  ${brokers === 1 ? '1 broker' : `${brokers} brokers`}`,
    `PostgreSQL    ${redactUrl(env.DATABASE_URL)}`,
    `keys          ${env.ONCEFLOW_ENCRYPTION_KEY_FILE ?? '(none)'}`,
    `codec server  ${stack.state.codecUrl ?? '(none)'}`,
    `registry      ${env.SCHEMA_REGISTRY_URL ?? '(none)'}`,
    `versions      ${Object.entries(versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
    `logs          ${stack.paths.logs}`,
  ].join('\n');
}

/**
 * Prints the stack and how to stop it, then returns: the services run detached in the
 * background (as after the demo, so the Web UI stays there to look around in, and `npm test`
 * reuses them) until `npm run stack:stop`.
 */
export function reportStack(stack: RunningStack): void {
  process.stdout.write(`${describeStack(stack)}\n`);
  process.stdout.write(
    stack.owned
      ? 'stack is up and keeps running in the background; `npm run stack:stop` stops it\n'
      : 'stack was already running and keeps running; `npm run stack:stop` stops it\n',
  );
}
