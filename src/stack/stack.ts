import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSIONS, stackPaths, type StackPaths } from './paths';
import { pickPort } from './ports';
import { isAlive, killGroupNow, stopProcessGroup } from './processes';
import { installTemporal, startTemporal, waitForTemporal } from './temporal';
import { installKafka, startKafka, waitForKafka } from './kafka';
import { installPostgres, startPostgres, waitForPostgres } from './postgres';
import { runCommand } from './run-command';
import { ensureDevKeyFile, ensureDevToken } from '../temporal/key-ring';
import { startCodecService, waitForCodec } from './codec';

type ServiceName = 'temporal' | 'kafka' | 'postgres' | 'codec';

/** What `.onceflow/stack.json` records about a running stack. */
export interface StackState {
  /** Pids (process-group leaders) of the services this stack started. */
  pids: Partial<Record<ServiceName, number>>;
  /** Settings for onceflow processes, in the names the config module reads. */
  env: {
    TEMPORAL_ADDRESS: string;
    TEMPORAL_UI_URL: string;
    KAFKA_BROKERS: string;
    DATABASE_URL: string;
    /** The dev key ring, so the default path is the encrypted one (issue 17). */
    ONCEFLOW_ENCRYPTION_KEY_FILE?: string;
    /** Token of the sandbox providers' admin API and mail log (issue 17). */
    PROVIDERS_ADMIN_TOKEN?: string;
  };
  /** The codec server the dev server's Web UI decrypts payloads through (issue 17). */
  codecUrl?: string;
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

/** Options of startStack. Ports default to ONCEFLOW_*_PORT or the usual ones; a busy port is replaced by a free one. */
export interface StackOptions {
  paths?: StackPaths;
  /** Progress lines. Default: stderr. */
  log?: (message: string) => void;
  /** Deadline for each service to become ready. Default: 180 s. */
  readyTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

function envPort(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`${name}: must be a port number (1..65535), got "${raw}"`);
  }
  return port;
}

export function readStackState(paths: StackPaths = stackPaths()): StackState | undefined {
  if (!existsSync(paths.stateFile)) return undefined;
  try {
    return JSON.parse(readFileSync(paths.stateFile, 'utf8')) as StackState;
  } catch {
    return undefined;
  }
}

function writeStackState(paths: StackPaths, state: StackState): void {
  mkdirSync(paths.root, { recursive: true });
  writeFileSync(paths.stateFile, `${JSON.stringify(state, null, 2)}\n`);
}

/** Stops every service recorded in the state file (gracefully, then by force) and removes it. */
export async function stopStack(paths: StackPaths = stackPaths()): Promise<StackState | undefined> {
  const state = readStackState(paths);
  if (!state) return undefined;
  // Postgres wants SIGINT for a fast shutdown; the others shut down cleanly on SIGTERM.
  await Promise.all(
    Object.entries(state.pids).map(([name, pid]) =>
      stopProcessGroup(pid, name === 'postgres' ? 'SIGINT' : 'SIGTERM'),
    ),
  );
  rmSync(paths.stateFile, { force: true });
  return state;
}

/** For process 'exit' handlers: kills the recorded services synchronously. */
export function killStackNow(paths: StackPaths = stackPaths()): void {
  const state = readStackState(paths);
  if (!state) return;
  for (const pid of Object.values(state.pids)) killGroupNow(pid);
  rmSync(paths.stateFile, { force: true });
}

function tailOf(file: string): string {
  if (!existsSync(file)) return '';
  return readFileSync(file, 'utf8').split('\n').slice(-15).join('\n');
}

/** Secrets the stack's processes use: the operator's own, or the stack's dev ones. */
function devKeyEnv(
  env: NodeJS.ProcessEnv,
  paths: StackPaths,
): { ONCEFLOW_ENCRYPTION_KEY_FILE: string; PROVIDERS_ADMIN_TOKEN: string } {
  return {
    ONCEFLOW_ENCRYPTION_KEY_FILE:
      env.ONCEFLOW_ENCRYPTION_KEY_FILE || ensureDevKeyFile(paths.encryptionKeys),
    PROVIDERS_ADMIN_TOKEN: env.PROVIDERS_ADMIN_TOKEN || ensureDevToken(paths.providersAdminToken),
  };
}

/**
 * Starts the local stack, or reuses one that is already running from the same folder.
 * Services named by TEMPORAL_ADDRESS, KAFKA_BROKERS or DATABASE_URL are used as they are.
 */
export async function startStack(options: StackOptions = {}): Promise<RunningStack> {
  const env = options.env ?? process.env;
  const paths = options.paths ?? stackPaths();
  const log = options.log ?? ((m: string) => process.stderr.write(`[stack] ${m}\n`));
  const timeoutMs = options.readyTimeoutMs ?? 180_000;

  const previous = readStackState(paths);
  if (previous) {
    const alive = Object.values(previous.pids).every((pid) => isAlive(pid));
    if (alive) {
      log('reusing the stack that is already running');
      const state = { ...previous, env: { ...previous.env, ...devKeyEnv(env, paths) } };
      return { state, paths, owned: false, stop: async () => undefined };
    }
    log('cleaning up a stack left behind by an earlier run');
    await stopStack(paths);
  }

  const external = {
    temporal: Boolean(env.TEMPORAL_ADDRESS),
    kafka: Boolean(env.KAFKA_BROKERS),
    postgres: Boolean(env.DATABASE_URL),
  };
  mkdirSync(paths.logs, { recursive: true });

  const installStarted = Date.now();
  const [temporalBin, , pgInstall] = await Promise.all([
    external.temporal ? undefined : installTemporal(paths, log),
    external.kafka ? undefined : installKafka(paths, log),
    external.postgres ? undefined : installPostgres(paths, log),
  ]);
  log(`installed in ${((Date.now() - installStarted) / 1000).toFixed(1)} s`);

  const taken = new Set<number>();
  const ports = {
    temporal: await pickPort(envPort(env, 'ONCEFLOW_TEMPORAL_PORT', 7233), taken),
    ui: await pickPort(envPort(env, 'ONCEFLOW_TEMPORAL_UI_PORT', 8233), taken),
    kafka: await pickPort(envPort(env, 'ONCEFLOW_KAFKA_PORT', 9092), taken),
    controller: await pickPort(envPort(env, 'ONCEFLOW_KAFKA_CONTROLLER_PORT', 9093), taken),
    postgres: await pickPort(envPort(env, 'ONCEFLOW_POSTGRES_PORT', 55432), taken),
    codec: await pickPort(envPort(env, 'ONCEFLOW_CODEC_PORT', 8089), taken),
  };

  const state: StackState = {
    pids: {},
    env: {
      TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS || `127.0.0.1:${ports.temporal}`,
      TEMPORAL_UI_URL: env.TEMPORAL_UI_URL || `http://127.0.0.1:${ports.ui}`,
      KAFKA_BROKERS: env.KAFKA_BROKERS || `127.0.0.1:${ports.kafka}`,
      DATABASE_URL: env.DATABASE_URL || '',
      ...devKeyEnv(env, paths),
    },
    ports: [],
    versions: {
      temporalCli: external.temporal ? 'external' : VERSIONS.temporalCli,
      kafka: external.kafka ? 'external' : VERSIONS.kafka,
    },
    startedAt: new Date().toISOString(),
  };
  const running: RunningStack = {
    state,
    paths,
    owned: true,
    stop: () => stopStack(paths).then(() => undefined),
  };

  try {
    const started = Date.now();
    const waits: Promise<unknown>[] = [];
    if (temporalBin) {
      state.codecUrl = `http://127.0.0.1:${ports.codec}`;
      state.pids.codec = startCodecService(paths, {
        port: ports.codec,
        uiUrl: state.env.TEMPORAL_UI_URL,
        keyFile: state.env.ONCEFLOW_ENCRYPTION_KEY_FILE!,
      });
      state.ports.push(ports.codec);
      waits.push(waitForCodec(ports.codec, timeoutMs));
      state.pids.temporal = startTemporal(
        paths,
        temporalBin,
        { grpc: ports.temporal, ui: ports.ui },
        { codecEndpoint: state.codecUrl },
      );
      state.ports.push(ports.temporal, ports.ui);
      const version = await runCommand(temporalBin, ['--version']);
      state.versions.temporalServer = /Server ([\d.]+)/.exec(version)?.[1] ?? '?';
      state.versions.temporalUi = /UI ([\d.]+)/.exec(version)?.[1] ?? '?';
      waits.push(waitForTemporal({ grpc: ports.temporal, ui: ports.ui }, timeoutMs));
    }
    if (!external.kafka) {
      state.pids.kafka = await startKafka(paths, {
        broker: ports.kafka,
        controller: ports.controller,
      });
      state.ports.push(ports.kafka, ports.controller);
      waits.push(waitForKafka({ broker: ports.kafka, controller: ports.controller }, timeoutMs));
    }
    if (pgInstall) {
      state.pids.postgres = await startPostgres(paths, pgInstall, ports.postgres);
      state.ports.push(ports.postgres);
      state.versions.postgres = pgInstall.version;
      waits.push(
        waitForPostgres(ports.postgres, timeoutMs).then((url) => {
          state.env.DATABASE_URL = url;
        }),
      );
    }
    // Recorded before waiting, so a crash during start-up still leaves pids to clean up. A
    // stack of external services only has nothing to record.
    const record = Object.keys(state.pids).length > 0;
    if (record) writeStackState(paths, state);
    await Promise.all(waits);
    if (record) writeStackState(paths, state);
    log(`services ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return running;
  } catch (err) {
    await stopStack(paths);
    const logs = (['temporal', 'kafka', 'postgres', 'codec'] as const)
      .map((n) => `--- ${n}.log (tail) ---\n${tailOf(join(paths.logs, `${n}.log`))}`)
      .join('\n');
    throw new Error(`stack failed to start: ${(err as Error).message}\n${logs}`, { cause: err });
  }
}
