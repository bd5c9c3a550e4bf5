import { existsSync, readFileSync } from 'node:fs';
import { uptime } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { isProcessAlive } from '../util/process-alive';

/**
 * The local stack's state file, `<state folder>/stack.json`: the one format both sides use.
 * The stack (harness/stack/stack-state.ts) writes it and reads it back to stop or reuse itself;
 * onceflow's processes read it to find a running stack when nothing else names their services
 * (./local-stack.ts). It lives here, not in harness/stack, because the config module is product
 * code and must not import the harness; the stack imports this instead. Only the fields both
 * sides need are checked; the stack records more (topology, Kafka layout, ports), which is
 * kept as it is.
 */

/** The repository root: the nearest folder above this file with a package.json (src or dist). */
function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** The state folder: ONCEFLOW_STATE_DIR, else `.onceflow/` at the repository root. */
export function localStackDir(env: NodeJS.ProcessEnv): string {
  return resolve(env.ONCEFLOW_STATE_DIR || join(repoRoot(), '.onceflow'));
}

/** The state file of the stack whose folder is `dir`. */
export function localStackFileIn(dir: string): string {
  return join(dir, 'stack.json');
}

/**
 * Settings a running local stack gives onceflow's processes, in the names the config module
 * reads: its services' addresses, the dev key ring and the providers' admin token.
 */
export const LOCAL_STACK_SETTINGS = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_UI_URL',
  'KAFKA_BROKERS',
  'DATABASE_URL',
  'ONCEFLOW_ENCRYPTION_KEY_FILE',
  'PROVIDERS_ADMIN_TOKEN',
  // Only when the stack was started with ONCEFLOW_TRACING=on: its Zipkin (harness/stack/zipkin.ts).
  'ONCEFLOW_TRACING',
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_ZIPKIN_ENDPOINT',
  'ONCEFLOW_TRACE_URL',
  // Unless the stack was started with ONCEFLOW_SCHEMA_REGISTRY=off: its Apicurio.
  'SCHEMA_REGISTRY_URL',
] as const;

export type LocalStackSetting = (typeof LOCAL_STACK_SETTINGS)[number];

/**
 * `env` of the state file (DATABASE_URL is empty while the stack's Postgres is starting). A
 * type, not an interface, so it passes as a NodeJS.ProcessEnv to child processes.
 */
export type LocalStackEnv = {
  TEMPORAL_ADDRESS: string;
  TEMPORAL_UI_URL: string;
  KAFKA_BROKERS: string;
  DATABASE_URL: string;
  /** The dev key ring, so the default path is the encrypted one (issue 17). */
  ONCEFLOW_ENCRYPTION_KEY_FILE?: string;
  /** Token of the sandbox providers' admin API and mail log (issue 17). */
  PROVIDERS_ADMIN_TOKEN?: string;
  /** Set when the stack runs a trace viewer (ONCEFLOW_TRACING=on at its start). */
  ONCEFLOW_TRACING?: string;
  OTEL_TRACES_EXPORTER?: string;
  OTEL_EXPORTER_ZIPKIN_ENDPOINT?: string;
  ONCEFLOW_TRACE_URL?: string;
  /** The stack's Schema Registry (Apicurio's Confluent-compatible API). */
  SCHEMA_REGISTRY_URL?: string;
};

/** What both sides read from the state file. */
export interface LocalStackRecord {
  /** Pids (process-group leaders) of the services the stack started, by service name. */
  pids: Partial<Record<string, number>>;
  env: LocalStackEnv;
  /** When the stack was started (ISO). */
  startedAt: string;
}

const recordSchema = z.looseObject({
  pids: z.record(z.string(), z.number().int().positive()),
  env: z.looseObject({
    TEMPORAL_ADDRESS: z.string(),
    TEMPORAL_UI_URL: z.string(),
    KAFKA_BROKERS: z.string(),
    DATABASE_URL: z.string(),
    ONCEFLOW_ENCRYPTION_KEY_FILE: z.string().optional(),
    PROVIDERS_ADMIN_TOKEN: z.string().optional(),
  }),
  startedAt: z.string(),
});

/**
 * The state file as written, every field kept; undefined when there is none or it is not a
 * stack's state (unreadable, not JSON, a field missing).
 */
export function readLocalStackFile(file: string): LocalStackRecord | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = recordSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** How liveness is judged; tests replace both. */
export interface LivenessProbe {
  /** Default: signal 0 (src/util/process-alive.ts). */
  isAlive?: (pid: number) => boolean;
  /** When this machine last booted (ms since the epoch). Default: now − os.uptime(). */
  bootTimeMs?: number;
}

/** A record started up to this long before the computed boot time still counts (rounding). */
const BOOT_SLACK_MS = 60_000;

/**
 * Whether the stack a state file describes is running: started since this machine last
 * booted (after a reboot its pids may belong to other processes) and every recorded process
 * alive. Cheap and synchronous (no connection), so every process can ask at start; a service
 * that is alive but not answering yet fails on first use like any other.
 */
export function localStackLiveness(
  record: LocalStackRecord,
  probe: LivenessProbe = {},
): { running: true } | { running: false; reason: string } {
  const alive = probe.isAlive ?? isProcessAlive;
  const bootTimeMs = probe.bootTimeMs ?? Date.now() - uptime() * 1000;
  const startedMs = Date.parse(record.startedAt);
  if (!Number.isFinite(startedMs))
    return { running: false, reason: 'its start time is unreadable' };
  if (startedMs < bootTimeMs - BOOT_SLACK_MS) {
    return {
      running: false,
      reason: `it was started at ${record.startedAt}, before this machine last booted`,
    };
  }
  const pids = Object.entries(record.pids).filter(
    (entry): entry is [string, number] => entry[1] !== undefined,
  );
  if (pids.length === 0) return { running: false, reason: 'it records no process' };
  const dead = pids.filter(([, pid]) => !alive(pid));
  if (dead.length > 0) {
    const names = dead.map(([name, pid]) => `${name} (pid ${pid})`).join(', ');
    return { running: false, reason: `${names} ${dead.length === 1 ? 'is' : 'are'} gone` };
  }
  return { running: true };
}
