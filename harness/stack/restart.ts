import { startKafkaNode, waitForKafka } from './kafka';
import { brokerById, brokersOf, type KafkaLayout } from './kafka-layout';
import { installPostgres, startPostgres, waitForPostgres } from './postgres';
import { stopProcessGroup } from './processes';
import { writeStackState, type RunningStack } from './stack-state';
import { installTemporal, startTemporal, waitForTemporal } from './temporal';
import {
  installTemporalServer,
  startTemporalServer,
  waitForTemporalServer,
} from './temporal-server';

/**
 * Stops and starts the stack's own services in place (same ports, same data), for chaos
 * faults and tests. Each records the new pid in stack.json at once, or `npm run stack:stop`
 * and the test runner's leftover check would miss the new process.
 */

/** A service the stack did not start (external) cannot be restarted from here. */
export class ServiceNotRestartableError extends Error {
  override readonly name = 'ServiceNotRestartableError';
}

/** How a process is stopped: SIGKILL is a crash, SIGTERM a clean shutdown. */
export type StopSignal = 'SIGKILL' | 'SIGTERM';

function portOf(address: string): number {
  const port = Number(address.split(',')[0]!.split(':').at(-1));
  if (!Number.isInteger(port)) throw new ServiceNotRestartableError(`no port in "${address}"`);
  return port;
}

function assertOwnTemporal(stack: RunningStack): void {
  if (stack.state.versions.temporal === 'external')
    throw new ServiceNotRestartableError('Temporal is external to this stack');
}

function kafkaLayoutOf(stack: RunningStack): KafkaLayout {
  const layout = stack.state.kafka;
  if (layout) return layout;
  throw new ServiceNotRestartableError(
    stack.state.pids.kafka === undefined
      ? 'Kafka is external to this stack'
      : 'this stack was started before stack.json recorded Kafka ports; restart it (npm run stack:stop)',
  );
}

/**
 * Stops one broker of the stack's Kafka (`nodeId` 1, 2 or 3 on the three-broker cluster; 1 is
 * the single broker). Default SIGKILL: a crash, so the controller fences it after its session
 * times out and the partitions it led elect new leaders from their ISR.
 */
export async function stopKafkaBroker(
  stack: RunningStack,
  nodeId: number,
  signal: StopSignal = 'SIGKILL',
): Promise<void> {
  const broker = brokerById(kafkaLayoutOf(stack), nodeId);
  const pid = stack.state.pids[broker.name];
  if (pid !== undefined) await stopProcessGroup(pid, signal);
  delete stack.state.pids[broker.name];
  writeStackState(stack.paths, stack.state);
}

/**
 * Starts a stopped broker again on its ports and data folder and waits until it is
 * registered with the controller and answers. Its replicas rejoin the ISR as they catch up;
 * a caller that needs full ISRs waits for that itself.
 */
export async function startKafkaBroker(
  stack: RunningStack,
  nodeId: number,
  timeoutMs = 120_000,
): Promise<void> {
  const layout = kafkaLayoutOf(stack);
  const broker = brokerById(layout, nodeId);
  stack.state.pids[broker.name] = await startKafkaNode(stack.paths, layout, broker);
  writeStackState(stack.paths, stack.state);
  await waitForKafka(layout, timeoutMs, [broker]);
}

/** Kills (or stops) one broker and starts it again: a leader move and a coordinator move. */
export async function restartKafkaBroker(
  stack: RunningStack,
  nodeId: number,
  options: { signal?: StopSignal; timeoutMs?: number } = {},
): Promise<void> {
  await stopKafkaBroker(stack, nodeId, options.signal);
  await startKafkaBroker(stack, nodeId, options.timeoutMs);
}

/**
 * Stops all of the stack's Kafka (SIGTERM; the controller after the brokers) and starts it
 * again on the same ports, then waits until every broker answers: Kafka gone for a while.
 */
export async function restartKafka(stack: RunningStack, timeoutMs = 120_000): Promise<void> {
  const layout = kafkaLayoutOf(stack);
  const brokers = brokersOf(layout);
  const others = layout.nodes.filter((n) => !brokers.includes(n));
  for (const group of [brokers, others]) {
    await Promise.all(
      group.map(async (node) => {
        const pid = stack.state.pids[node.name];
        if (pid !== undefined) await stopProcessGroup(pid, 'SIGTERM');
        delete stack.state.pids[node.name];
      }),
    );
  }
  writeStackState(stack.paths, stack.state);
  for (const node of [...others, ...brokers]) {
    stack.state.pids[node.name] = await startKafkaNode(stack.paths, layout, node);
    writeStackState(stack.paths, stack.state);
  }
  await waitForKafka(layout, timeoutMs);
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
  writeStackState(stack.paths, stack.state);
  await waitForPostgres(port, timeoutMs);
}

/**
 * Stops the stack's Temporal process, the dev server or the real server (default SIGKILL: a
 * crash, not a clean stop). The real server's Web UI keeps running and reconnects.
 */
export async function stopTemporalProcess(
  stack: RunningStack,
  signal: StopSignal = 'SIGKILL',
): Promise<void> {
  assertOwnTemporal(stack);
  const pid = stack.state.pids.temporal;
  if (pid !== undefined) await stopProcessGroup(pid, signal);
  delete stack.state.pids.temporal;
  writeStackState(stack.paths, stack.state);
}

/**
 * Starts the stack's Temporal process again on the same ports and data (the dev server's
 * SQLite file, or the real server's config and databases) and waits until it answers with its
 * search attributes (and the dev server's Web UI is back). Workflows and their timers survive;
 * workers and the bridge reconnect on their own.
 */
export async function startTemporalProcess(
  stack: RunningStack,
  timeoutMs = 120_000,
): Promise<void> {
  assertOwnTemporal(stack);
  const grpc = portOf(stack.state.env.TEMPORAL_ADDRESS);
  const server = stack.state.temporalServer;
  if (server) {
    const { server: bin } = await installTemporalServer(stack.paths, () => undefined);
    stack.state.pids.temporal = startTemporalServer(stack.paths, bin, server.configFile);
    writeStackState(stack.paths, stack.state);
    await waitForTemporalServer(grpc, timeoutMs);
    return;
  }
  const ports = { grpc, ui: Number(new URL(stack.state.env.TEMPORAL_UI_URL).port) };
  const bin = await installTemporal(stack.paths, () => undefined);
  // Same flags as at start: the Web UI keeps decrypting through the stack's codec server.
  stack.state.pids.temporal = startTemporal(stack.paths, bin, ports, {
    codecEndpoint: stack.state.codecUrl,
  });
  writeStackState(stack.paths, stack.state);
  await waitForTemporal(ports, timeoutMs);
}

/** Kills the stack's Temporal process (SIGKILL) and starts it again; see startTemporalProcess. */
export async function restartTemporal(stack: RunningStack, timeoutMs = 120_000): Promise<void> {
  await stopTemporalProcess(stack, 'SIGKILL');
  await startTemporalProcess(stack, timeoutMs);
}
