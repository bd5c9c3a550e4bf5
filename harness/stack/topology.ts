/**
 * The shape of the local stack, read from its two settings. Every consumer of the stack (the
 * test runner, the demo, chaos, the benches) starts it through startStack, which reads these
 * from the environment, so one pair of variables switches all of them.
 *
 * Like the stack's port settings (docs/development.md, "The local stack"), these belong to the stack, not
 * to onceflow's processes: src/config/settings.ts does not read them. (The state folder,
 * ONCEFLOW_STATE_DIR, is a setting of both: processes look for a running stack there.)
 */

/** Which Temporal the stack starts. */
export type TemporalKind = 'dev' | 'server';

/** How many Kafka brokers the stack starts. */
export type KafkaBrokerCount = 1 | 3;

export interface StackTopology {
  /**
   * `ONCEFLOW_TEMPORAL`: `dev` (default) = the temporal CLI's dev server (SQLite, one history
   * shard); `server` = the Temporal server built from its Go module, on the stack's PostgreSQL
   * with 4 history shards and SQL visibility, and a separate Web UI server.
   * Example: `ONCEFLOW_TEMPORAL=server npm run stack`.
   */
  temporal: TemporalKind;
  /**
   * `ONCEFLOW_KAFKA_BROKERS`: `1` (default) = one combined broker+controller; `3` = three
   * brokers and one KRaft controller, topics with replication factor 3 and
   * `min.insync.replicas` 2. Example: `ONCEFLOW_KAFKA_BROKERS=3 npm run stack`.
   */
  kafkaBrokers: KafkaBrokerCount;
}

export const DEFAULT_TOPOLOGY: StackTopology = { temporal: 'dev', kafkaBrokers: 1 };

/** A stack setting with a value the stack cannot use; names the setting. */
export class StackSettingError extends Error {
  override readonly name = 'StackSettingError';
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
  }
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, allowed: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return allowed[0]!;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new StackSettingError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** The topology the environment asks for; unset or empty settings keep today's defaults. */
export function readTopology(env: NodeJS.ProcessEnv = process.env): StackTopology {
  return {
    temporal: oneOf(env, 'ONCEFLOW_TEMPORAL', ['dev', 'server'] as const),
    kafkaBrokers: Number(oneOf(env, 'ONCEFLOW_KAFKA_BROKERS', ['1', '3'] as const)) as 1 | 3,
  };
}

/** The settings that select `topology`, e.g. `ONCEFLOW_TEMPORAL=server ONCEFLOW_KAFKA_BROKERS=3`. */
export function topologySettings(topology: StackTopology): string {
  return `ONCEFLOW_TEMPORAL=${topology.temporal} ONCEFLOW_KAFKA_BROKERS=${topology.kafkaBrokers}`;
}

/** True when both describe the same stack. */
export function sameTopology(a: StackTopology, b: StackTopology): boolean {
  return a.temporal === b.temporal && a.kafkaBrokers === b.kafkaBrokers;
}
