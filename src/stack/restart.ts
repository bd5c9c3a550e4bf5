import { writeFileSync } from 'node:fs';
import { startKafka, waitForKafka } from './kafka';
import { installPostgres, startPostgres, waitForPostgres } from './postgres';
import { stopProcessGroup } from './processes';
import type { RunningStack } from './stack';
import { installTemporal, startTemporal, waitForTemporal } from './temporal';

/** A service the stack did not start (external) cannot be restarted from here. */
export class ServiceNotRestartableError extends Error {
  override readonly name = 'ServiceNotRestartableError';
}

function portOf(address: string): number {
  const port = Number(address.split(',')[0]!.split(':').at(-1));
  if (!Number.isInteger(port)) throw new ServiceNotRestartableError(`no port in "${address}"`);
  return port;
}

function saveState(stack: RunningStack): void {
  // The new pid must be recorded, or `npm run stack:stop` would leave the new process behind.
  writeFileSync(stack.paths.stateFile, `${JSON.stringify(stack.state, null, 2)}\n`);
}

/**
 * Stops the stack's Kafka broker (process group, SIGTERM) and starts it again on the same
 * broker and controller ports, then waits until it answers metadata requests. The controller
 * port is not recorded by name: startStack pushes it right after the broker port.
 */
export async function restartKafka(stack: RunningStack, timeoutMs = 120_000): Promise<void> {
  const pid = stack.state.pids.kafka;
  if (pid === undefined) throw new ServiceNotRestartableError('Kafka is external to this stack');
  const broker = portOf(stack.state.env.KAFKA_BROKERS);
  const controller = stack.state.ports[stack.state.ports.indexOf(broker) + 1];
  if (controller === undefined)
    throw new ServiceNotRestartableError('Kafka controller port not found in stack state');
  await stopProcessGroup(pid, 'SIGTERM');
  stack.state.pids.kafka = await startKafka(stack.paths, { broker, controller });
  saveState(stack);
  await waitForKafka({ broker, controller }, timeoutMs);
}

/** Stops the stack's Postgres (SIGINT: fast shutdown) and starts it again on the same port. */
export async function restartPostgres(stack: RunningStack, timeoutMs = 120_000): Promise<void> {
  const pid = stack.state.pids.postgres;
  if (pid === undefined)
    throw new ServiceNotRestartableError('PostgreSQL is external to this stack');
  const port = Number(new URL(stack.state.env.DATABASE_URL).port);
  await stopProcessGroup(pid, 'SIGINT');
  const install = await installPostgres(stack.paths, () => undefined);
  stack.state.pids.postgres = await startPostgres(stack.paths, install, port);
  saveState(stack);
  await waitForPostgres(port, timeoutMs);
}

/**
 * Kills the stack's Temporal dev server (SIGKILL: a crash, not a clean stop) and starts it
 * again on the same gRPC and UI ports with the same SQLite file, then waits until it answers
 * with its search attributes and serves the Web UI. Workflows and their timers survive in
 * the file; workers and the bridge reconnect on their own.
 */
export async function restartTemporal(stack: RunningStack, timeoutMs = 120_000): Promise<void> {
  const pid = stack.state.pids.temporal;
  if (pid === undefined) throw new ServiceNotRestartableError('Temporal is external to this stack');
  const ports = {
    grpc: portOf(stack.state.env.TEMPORAL_ADDRESS),
    ui: Number(new URL(stack.state.env.TEMPORAL_UI_URL).port),
  };
  await stopProcessGroup(pid, 'SIGKILL');
  const bin = await installTemporal(stack.paths, () => undefined);
  // Same flags as at start: the Web UI keeps decrypting through the stack's codec server.
  stack.state.pids.temporal = startTemporal(stack.paths, bin, ports, {
    codecEndpoint: stack.state.codecUrl,
  });
  saveState(stack);
  await waitForTemporal(ports, timeoutMs);
}
