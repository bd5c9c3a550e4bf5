import { formattedClusterId, startKafkaNode, waitForKafka } from './kafka';
import { brokerById, brokersOf, type KafkaLayout, type KafkaNode } from './kafka-layout';
import { holdPort, type PortHold } from './port-hold';
import { isPortFree } from './ports';
import { installPostgres, startPostgres, waitForPostgres } from './postgres';
import { isAlive, readyWhileAlive, ServiceExitedError, stopProcessGroup } from './processes';
import { waitFor } from '../../src/util/wait';
import { readStackState, writeStackState, type RunningStack } from './stack-state';
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

/**
 * Takes the pids stack.json records now into `stack`. Whoever holds a copy of the stack's
 * state (the test runner, a test that read it at load, a chaos fault) may be behind a restart
 * another made since: a stale pid stops nothing, and writing the copy back would record the
 * dead pids and lose the live ones, which `npm run stack:stop` then leaves running.
 */
function takeRecordedPids(stack: Pick<RunningStack, 'state' | 'paths'>): void {
  const recorded = readStackState(stack.paths);
  if (recorded) stack.state.pids = { ...recorded.pids };
}

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

// Ports of the Kafka processes stopped here, held until they are started again (port-hold.ts).
const heldPorts = new Map<string, PortHold[]>();

function portsOf(node: KafkaNode): number[] {
  return [node.brokerPort, node.controllerPort].filter((p): p is number => p !== undefined);
}

async function holdPortsOf(node: KafkaNode): Promise<void> {
  const holds: PortHold[] = [];
  for (const port of portsOf(node)) {
    const hold = await holdPort(port);
    if (hold) holds.push(hold);
  }
  heldPorts.set(node.name, holds);
}

async function releasePortsOf(node: KafkaNode): Promise<void> {
  for (const hold of heldPorts.get(node.name) ?? []) await hold.release();
  heldPorts.delete(node.name);
}

/** Frees every port this process holds for a stopped Kafka process, starting nothing. */
export async function releaseKafkaPorts(): Promise<void> {
  for (const holds of heldPorts.values()) for (const hold of holds) await hold.release();
  heldPorts.clear();
}

/**
 * Starts the stopped ones of `nodes` on their own ports and data, in order, and waits until
 * `brokers` answer as members of our cluster. A process that exits while starting (on a shared
 * machine: its port taken meanwhile by another stack, which picks a default port when it is
 * free) is started again once its ports are free, until the deadline; an answer from another
 * cluster on our port is never taken for ours.
 */
async function startKafkaNodes(
  stack: RunningStack,
  layout: KafkaLayout,
  nodes: KafkaNode[],
  brokers: KafkaNode[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1000, deadline - Date.now());
  const clusterId = formattedClusterId(stack.paths, layout, nodes[0]!);
  for (;;) {
    for (const node of nodes) {
      const pid = stack.state.pids[node.name];
      if (pid !== undefined && isAlive(pid)) continue;
      await releasePortsOf(node);
      await waitFor(
        async () => (await Promise.all(portsOf(node).map((p) => isPortFree(p)))).every(Boolean),
        { timeoutMs: left(), intervalMs: 500, what: `${node.name}'s ports ${portsOf(node)} free` },
      );
      stack.state.pids[node.name] = await startKafkaNode(stack.paths, layout, node);
      writeStackState(stack.paths, stack.state);
    }
    try {
      await nodes.reduce(
        (ready, node) => readyWhileAlive(stack.state.pids[node.name]!, node.name, ready),
        waitForKafka(layout, left(), brokers, clusterId),
      );
      return;
    } catch (err) {
      if (!(err instanceof ServiceExitedError) || Date.now() >= deadline) throw err;
    }
  }
}

/**
 * Stops one broker of the stack's Kafka (`nodeId` 1, 2 or 3 on the three-broker cluster; 1 is
 * the single broker). Default SIGKILL: a crash, so the controller fences it after its session
 * times out and the partitions it led elect new leaders from their ISR. Its port stays held
 * (refusing every connection) until startKafkaBroker, so no other program takes it meanwhile.
 */
export async function stopKafkaBroker(
  stack: RunningStack,
  nodeId: number,
  signal: StopSignal = 'SIGKILL',
): Promise<void> {
  takeRecordedPids(stack);
  const broker = brokerById(kafkaLayoutOf(stack), nodeId);
  const pid = stack.state.pids[broker.name];
  if (pid !== undefined) await stopProcessGroup(pid, signal);
  delete stack.state.pids[broker.name];
  writeStackState(stack.paths, stack.state);
  await holdPortsOf(broker);
}

/**
 * Starts a stopped broker again on its ports and data folder and waits until it is
 * registered with the controller and answers for our cluster (startKafkaNodes). Its replicas
 * rejoin the ISR as they catch up; a caller that needs full ISRs waits for that itself.
 */
export async function startKafkaBroker(
  stack: RunningStack,
  nodeId: number,
  timeoutMs = 120_000,
): Promise<void> {
  takeRecordedPids(stack);
  const layout = kafkaLayoutOf(stack);
  const broker = brokerById(layout, nodeId);
  await startKafkaNodes(stack, layout, [broker], [broker], timeoutMs);
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
 * Stops all of the stack's Kafka (SIGTERM; the controller after the brokers), holding their
 * ports, and starts it again on the same ports, then waits until every broker answers: Kafka
 * gone for a while.
 */
export async function restartKafka(stack: RunningStack, timeoutMs = 120_000): Promise<void> {
  takeRecordedPids(stack);
  const layout = kafkaLayoutOf(stack);
  const brokers = brokersOf(layout);
  const others = layout.nodes.filter((n) => !brokers.includes(n));
  for (const group of [brokers, others]) {
    await Promise.all(
      group.map(async (node) => {
        const pid = stack.state.pids[node.name];
        if (pid !== undefined) await stopProcessGroup(pid, 'SIGTERM');
        delete stack.state.pids[node.name];
        await holdPortsOf(node);
      }),
    );
  }
  writeStackState(stack.paths, stack.state);
  await startKafkaNodes(stack, layout, [...others, ...brokers], brokers, timeoutMs);
}

/** Stops the stack's Postgres (SIGINT: fast shutdown, as a failover's old primary goes). */
export async function stopStackPostgres(
  stack: Pick<RunningStack, 'state' | 'paths'>,
): Promise<void> {
  takeRecordedPids(stack);
  const pid = stack.state.pids.postgres;
  if (pid === undefined)
    throw new ServiceNotRestartableError('PostgreSQL is external to this stack');
  await stopProcessGroup(pid, 'SIGINT');
}

/** Starts the stack's Postgres again on its port and data, once stopStackPostgres stopped it. */
export async function startStackPostgres(
  stack: Pick<RunningStack, 'state' | 'paths'>,
  timeoutMs = 120_000,
): Promise<void> {
  takeRecordedPids(stack);
  const port = Number(new URL(stack.state.env.DATABASE_URL).port);
  const install = await installPostgres(stack.paths, () => undefined);
  stack.state.pids.postgres = await startPostgres(stack.paths, install, port);
  writeStackState(stack.paths, stack.state);
  await waitForPostgres(port, timeoutMs);
}

/** Stops the stack's Postgres (SIGINT: fast shutdown) and starts it again on the same port. */
export async function restartPostgres(stack: RunningStack, timeoutMs = 120_000): Promise<void> {
  await stopStackPostgres(stack);
  await startStackPostgres(stack, timeoutMs);
}

/**
 * Stops the stack's Temporal process, the dev server or the real server (default SIGKILL: a
 * crash, not a clean stop). The real server's Web UI keeps running and reconnects.
 */
export async function stopTemporalProcess(
  stack: RunningStack,
  signal: StopSignal = 'SIGKILL',
): Promise<void> {
  takeRecordedPids(stack);
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
  takeRecordedPids(stack);
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
