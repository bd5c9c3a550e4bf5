import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readLocalStackFile, type LocalStackEnv } from '../../src/config/local-stack-file';
import { stackPaths, type StackPaths } from './paths';
import { killGroupNow, stopProcessGroup } from './processes';
import type { KafkaLayout, KafkaProcessName } from './kafka-layout';
import type { TemporalServerPorts } from './temporal-server';
import { DEFAULT_TOPOLOGY, type StackTopology } from './topology';

/**
 * A process of the stack: `temporal` (dev server or real server), `temporal-ui` (the real
 * server's Web UI), `kafka` (the single broker) or `kafka-controller` and `kafka-1`..`kafka-3`
 * (the cluster), `postgres`, `codec`, `zipkin` (the trace viewer, ONCEFLOW_TRACING=on),
 * `schema-registry` (Apicurio, unless ONCEFLOW_SCHEMA_REGISTRY=off).
 */
export type ServiceName =
  | 'temporal'
  | 'temporal-ui'
  | KafkaProcessName
  | 'postgres'
  | 'codec'
  | 'zipkin'
  | 'schema-registry';

/** What `.onceflow/stack.json` records about a running stack. */
export interface StackState {
  /** The topology it was started with (absent in files of older stacks: the default). */
  topology?: StackTopology;
  /** Pids (process-group leaders) of the services this stack started. */
  pids: Partial<Record<ServiceName, number>>;
  /** Settings for onceflow processes, in the names the config module reads. */
  env: LocalStackEnv;
  /** The codec server the Web UI decrypts payloads through (issue 17). */
  codecUrl?: string;
  /** The stack's Kafka processes and their ports, for restarts (absent when external). */
  kafka?: KafkaLayout;
  /** The real Temporal server's ports and config file, for restarts (ONCEFLOW_TEMPORAL=server). */
  temporalServer?: { ports: TemporalServerPorts; uiPort: number; configFile: string };
  /** Ports the stack's own services listen on. */
  ports: number[];
  versions: Record<string, string>;
  startedAt: string;
}

export interface RunningStack {
  state: StackState;
  paths: StackPaths;
  /** False when an already running stack was reused: then stop() leaves it running. */
  owned: boolean;
  stop(): Promise<void>;
}

/** The topology a state file describes; files of older stacks had only the default. */
export function topologyOf(state: StackState): StackTopology {
  return state.topology ?? DEFAULT_TOPOLOGY;
}

/** The state file, every field kept (src/config/local-stack-file.ts reads and checks it). */
export function readStackState(paths: StackPaths = stackPaths()): StackState | undefined {
  return readLocalStackFile(paths.stateFile) as StackState | undefined;
}

export function writeStackState(paths: StackPaths, state: StackState): void {
  mkdirSync(paths.root, { recursive: true });
  writeFileSync(paths.stateFile, `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * Processes stopped last: Kafka brokers move their partitions' leadership through the
 * controller while they shut down, and the Temporal server and the brokers' clients still
 * talk to Postgres and the controller until they are gone.
 */
const STOPPED_LAST: readonly string[] = ['kafka-controller', 'postgres'];

/** Stops every service recorded in the state file (gracefully, then by force) and removes it. */
export async function stopStack(paths: StackPaths = stackPaths()): Promise<StackState | undefined> {
  const state = readStackState(paths);
  if (!state) return undefined;
  const entries = Object.entries(state.pids) as [string, number][];
  // Postgres wants SIGINT for a fast shutdown; the others shut down cleanly on SIGTERM.
  const stop = ([name, pid]: [string, number]) =>
    stopProcessGroup(pid, name === 'postgres' ? 'SIGINT' : 'SIGTERM');
  await Promise.all(entries.filter(([name]) => !STOPPED_LAST.includes(name)).map(stop));
  await Promise.all(entries.filter(([name]) => STOPPED_LAST.includes(name)).map(stop));
  rmSync(paths.stateFile, { force: true });
  return state;
}

/** For process 'exit' handlers: kills the recorded services synchronously. */
export function killStackNow(paths: StackPaths = stackPaths()): void {
  const state = readStackState(paths);
  if (!state) return;
  for (const pid of Object.values(state.pids)) if (pid !== undefined) killGroupNow(pid);
  rmSync(paths.stateFile, { force: true });
}
