import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSIONS, stackPaths, type StackPaths } from './paths';
import { pickAnyPort, pickPort, pickPortBelow } from './ports';
import { readyWhileAlive } from './processes';
import { localStackLiveness } from '../../src/config/local-stack-file';
import { installTemporal, startTemporal, waitForTemporal } from './temporal';
import { rotateTemporalDb, temporalDbMaxBytes } from './temporal-db-rotation';
import { bootstrapOf, installKafka, startKafkaNode, waitForKafka } from './kafka';
import { singleBrokerLayout, threeBrokerLayout, type KafkaLayout } from './kafka-layout';
import { installPostgres, startPostgres, waitForPostgres } from './postgres';
import { runCommand } from './run-command';
import { ensureDevKeyFile, ensureDevToken } from '../../src/config/key-ring';
import { startCodecService, waitForCodec } from './codec';
import {
  readStackState,
  stopStack,
  topologyOf,
  writeStackState,
  type RunningStack,
  type StackState,
} from './stack-state';
import {
  readTopology,
  sameTopology,
  StackSettingError,
  topologySettings,
  type StackTopology,
} from './topology';
import {
  installTemporalServer,
  startTemporalServer,
  waitForTemporalServer,
  writeTemporalServerConfig,
  type TemporalServerInstall,
  type TemporalServerPorts,
} from './temporal-server';
import { installTemporalUi, startTemporalUi, waitForTemporalUi } from './temporal-ui';
import { prepareTemporalDatabases } from './temporal-server-db';
import { installZipkin, startZipkin, waitForZipkin, zipkinSettings } from './zipkin';
import {
  installSchemaRegistry,
  registryApiUrl,
  registryMode,
  registryWanted,
  startSchemaRegistry,
} from './schema-registry';

export {
  killStackNow,
  readStackState,
  stopStack,
  type RunningStack,
  type StackState,
} from './stack-state';

/** Options of startStack. Ports default to ONCEFLOW_*_PORT or the usual ones; a busy port is replaced by a free one. */
export interface StackOptions {
  paths?: StackPaths;
  /** Progress lines. Default: stderr. */
  log?: (message: string) => void;
  /** Deadline for each service to become ready. Default: 180 s. */
  readyTimeoutMs?: number;
  /** Where the ONCEFLOW_* stack settings and service addresses are read. Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

function envPort(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new StackSettingError(name, `must be a port number (1..65535), got "${raw}"`);
  }
  return port;
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
 * ONCEFLOW_TRACING=on asks the stack for a trace viewer too (harness/stack/zipkin.ts); the value
 * is checked where it is a setting (src/config/settings.ts).
 */
function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  return env.ONCEFLOW_TRACING?.trim().toLowerCase() === 'on';
}

/** Services named by the environment, used as they are and not started. */
interface External {
  temporal: boolean;
  kafka: boolean;
  postgres: boolean;
}

/** A topology the stack cannot start with these external services; names the settings. */
function checkTopology(topology: StackTopology, external: External): void {
  if (topology.temporal === 'server' && !external.temporal && external.postgres) {
    throw new StackSettingError(
      'ONCEFLOW_TEMPORAL',
      'server keeps Temporal in the stack’s own PostgreSQL, but DATABASE_URL names an external one ' +
        '(unset DATABASE_URL, or also set TEMPORAL_ADDRESS to use an external Temporal)',
    );
  }
}

/**
 * The server's internal ports. Membership ports are stored in a SMALLINT column, so they
 * must be below 32768 (Linux hands out ephemeral ports above): Temporal's usual ones when
 * free, else the next free ones.
 */
async function pickServerPorts(taken: Set<number>, frontend: number): Promise<TemporalServerPorts> {
  const any = () => pickAnyPort(taken);
  const membership = (preferred: number) => pickPortBelow(preferred, 32768, taken);
  return {
    frontend,
    frontendHttp: await any(),
    frontendMembership: await membership(6933),
    history: await any(),
    historyMembership: await membership(6934),
    matching: await any(),
    matchingMembership: await membership(6935),
    worker: await any(),
    workerMembership: await membership(6939),
  };
}

async function pickKafkaLayout(
  env: NodeJS.ProcessEnv,
  taken: Set<number>,
  brokers: 1 | 3,
): Promise<KafkaLayout> {
  const broker = await pickPort(envPort(env, 'ONCEFLOW_KAFKA_PORT', 9092), taken);
  const controller = await pickPort(envPort(env, 'ONCEFLOW_KAFKA_CONTROLLER_PORT', 9093), taken);
  if (brokers === 1) return singleBrokerLayout({ broker, controller });
  // Brokers 2 and 3 prefer the ports after the controller's (9094, 9095 by default).
  const more = [await pickPort(controller + 1, taken), await pickPort(controller + 2, taken)];
  return threeBrokerLayout({ controller, brokers: [broker, ...more] });
}

/**
 * Starts the local stack, or reuses one that is already running from the same folder.
 * Services named by TEMPORAL_ADDRESS, KAFKA_BROKERS or DATABASE_URL are used as they are.
 * ONCEFLOW_TEMPORAL and ONCEFLOW_KAFKA_BROKERS choose the topology (harness/stack/topology.ts).
 */
export async function startStack(options: StackOptions = {}): Promise<RunningStack> {
  const env = options.env ?? process.env;
  const paths = options.paths ?? stackPaths();
  const log = options.log ?? ((m: string) => process.stderr.write(`[stack] ${m}\n`));
  const timeoutMs = options.readyTimeoutMs ?? 180_000;
  const topology = readTopology(env);
  const external: External = {
    temporal: Boolean(env.TEMPORAL_ADDRESS),
    kafka: Boolean(env.KAFKA_BROKERS),
    postgres: Boolean(env.DATABASE_URL),
  };
  checkTopology(topology, external);
  const temporalDbMax = temporalDbMaxBytes(env);

  const previous = readStackState(paths);
  if (previous) {
    // The same rule as onceflow's processes use to find it (src/config/local-stack-file.ts).
    if (localStackLiveness(previous).running) {
      if (!sameTopology(topologyOf(previous), topology)) {
        throw new StackSettingError(
          'ONCEFLOW_TEMPORAL/ONCEFLOW_KAFKA_BROKERS',
          `a stack with ${topologySettings(topologyOf(previous))} is running from ${paths.root}; ` +
            `stop it (npm run stack:stop) or give this one its own ONCEFLOW_STATE_DIR`,
        );
      }
      log('reusing the stack that is already running');
      if (tracingWanted(env) && !previous.pids.zipkin) {
        log('it runs no trace viewer: stop it (npm run stack:stop) to start one with tracing on');
      }
      if (registryWanted(env) && !env.SCHEMA_REGISTRY_URL && !previous.pids['schema-registry']) {
        log('it runs no schema registry: stop it (npm run stack:stop) to start one');
      }
      const state = { ...previous, env: { ...previous.env, ...devKeyEnv(env, paths) } };
      return { state, paths, owned: false, stop: async () => undefined };
    }
    log('cleaning up a stack left behind by an earlier run');
    await stopStack(paths);
  }
  mkdirSync(paths.logs, { recursive: true });

  const realServer = topology.temporal === 'server' && !external.temporal;
  const installStarted = Date.now();
  const tracing = tracingWanted(env);
  // An external registry (SCHEMA_REGISTRY_URL) is used as it is, like the other services.
  const registry = registryWanted(env) && !env.SCHEMA_REGISTRY_URL;
  const [temporalBin, serverInstall, , pgInstall, zipkinJar, registryInstall] = await Promise.all([
    external.temporal || realServer ? undefined : installTemporal(paths, log),
    // The UI after the server: two Go builds at once only slow each other on a small machine.
    realServer
      ? installTemporalServer(paths, log).then(async (server) => ({
          ...server,
          ui: await installTemporalUi(paths, log),
        }))
      : undefined,
    external.kafka ? undefined : installKafka(paths, log),
    external.postgres ? undefined : installPostgres(paths, log),
    tracing ? installZipkin(paths, log) : undefined,
    registry ? installSchemaRegistry(paths, log, registryMode(env)) : undefined,
  ]);
  log(`installed in ${((Date.now() - installStarted) / 1000).toFixed(1)} s`);

  const taken = new Set<number>();
  const ports = {
    temporal: await pickPort(envPort(env, 'ONCEFLOW_TEMPORAL_PORT', 7233), taken),
    ui: await pickPort(envPort(env, 'ONCEFLOW_TEMPORAL_UI_PORT', 8233), taken),
    postgres: await pickPort(envPort(env, 'ONCEFLOW_POSTGRES_PORT', 55432), taken),
    codec: await pickPort(envPort(env, 'ONCEFLOW_CODEC_PORT', 8089), taken),
    zipkin: zipkinJar ? await pickPort(envPort(env, 'ONCEFLOW_ZIPKIN_PORT', 9411), taken) : 0,
    registry: registryInstall
      ? await pickPort(envPort(env, 'ONCEFLOW_SCHEMA_REGISTRY_PORT', 8081), taken)
      : 0,
    registryManagement: registryInstall ? await pickAnyPort(taken) : 0,
  };
  const kafkaLayout = external.kafka
    ? undefined
    : await pickKafkaLayout(env, taken, topology.kafkaBrokers);

  const state: StackState = {
    topology,
    pids: {},
    env: {
      TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS || `127.0.0.1:${ports.temporal}`,
      TEMPORAL_UI_URL: env.TEMPORAL_UI_URL || `http://127.0.0.1:${ports.ui}`,
      KAFKA_BROKERS: env.KAFKA_BROKERS || bootstrapOf(kafkaLayout!),
      DATABASE_URL: env.DATABASE_URL || '',
      ...devKeyEnv(env, paths),
    },
    kafka: kafkaLayout,
    ports: [],
    versions: {
      ...(external.temporal
        ? { temporal: 'external' }
        : realServer
          ? { temporalServer: VERSIONS.temporalServer, temporalUi: VERSIONS.temporalUiServer }
          : { temporalCli: VERSIONS.temporalCli }),
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
  // Recorded before waiting and after each start, so a crash during start-up still leaves
  // pids to clean up. A stack of external services only has nothing to record.
  const record = () => {
    if (Object.keys(state.pids).length > 0) writeStackState(paths, state);
  };

  try {
    const started = Date.now();
    const waits: Promise<unknown>[] = [];
    if (!external.temporal) {
      state.codecUrl = `http://127.0.0.1:${ports.codec}`;
      state.pids.codec = startCodecService(paths, {
        port: ports.codec,
        uiUrl: state.env.TEMPORAL_UI_URL,
        keyFile: state.env.ONCEFLOW_ENCRYPTION_KEY_FILE!,
      });
      state.ports.push(ports.codec);
      waits.push(readyWhileAlive(state.pids.codec, 'codec', waitForCodec(ports.codec, timeoutMs)));
    }
    if (temporalBin) {
      // No stack runs from this folder (one that did was reused above): nothing is lost mid-way.
      rotateTemporalDb(paths.temporalDb, temporalDbMax, log);
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
      waits.push(
        readyWhileAlive(
          state.pids.temporal,
          'temporal',
          waitForTemporal({ grpc: ports.temporal, ui: ports.ui }, timeoutMs),
        ),
      );
    }
    if (kafkaLayout) {
      for (const node of kafkaLayout.nodes) {
        state.pids[node.name] = await startKafkaNode(paths, kafkaLayout, node);
        state.ports.push(
          ...[node.brokerPort, node.controllerPort].filter((p): p is number => p !== undefined),
        );
      }
      const kafkaPids = kafkaLayout.nodes.map((n) => [n.name, state.pids[n.name]!] as const);
      waits.push(
        kafkaPids.reduce(
          (ready, [name, pid]) => readyWhileAlive(pid, name, ready),
          waitForKafka(kafkaLayout, timeoutMs),
        ),
      );
    }
    if (zipkinJar) {
      state.pids.zipkin = startZipkin(paths, zipkinJar, ports.zipkin);
      state.ports.push(ports.zipkin);
      state.versions.zipkin = VERSIONS.zipkin;
      Object.assign(state.env, zipkinSettings(ports.zipkin));
      waits.push(
        readyWhileAlive(state.pids.zipkin, 'zipkin', waitForZipkin(ports.zipkin, timeoutMs)),
      );
    }
    if (registryInstall) {
      const pid = startSchemaRegistry(paths, registryInstall, {
        http: ports.registry,
        management: ports.registryManagement,
      });
      state.pids['schema-registry'] = pid;
      state.ports.push(ports.registry, ports.registryManagement);
      state.versions.apicurioRegistry = VERSIONS.apicurioRegistry;
      state.env.SCHEMA_REGISTRY_URL = registryApiUrl(ports.registry);
      // Not waited for: its JVM takes about 9 s to boot, more than the rest of the stack, and a
      // bridge treats a registry not up yet like one that is down (its partitions wait).
      // Whoever produces through it first waits for it (waitForSchemaRegistry).
      log('schema registry starting in the background');
    }
    let postgresReady: Promise<void> = Promise.resolve();
    if (pgInstall) {
      state.pids.postgres = await startPostgres(paths, pgInstall, ports.postgres);
      state.ports.push(ports.postgres);
      state.versions.postgres = pgInstall.version;
      postgresReady = readyWhileAlive(
        state.pids.postgres,
        'postgres',
        waitForPostgres(ports.postgres, timeoutMs),
      ).then((url) => {
        state.env.DATABASE_URL = url;
      });
      waits.push(postgresReady);
    }
    if (serverInstall) {
      waits.push(
        postgresReady.then(() =>
          startRealServer(running, serverInstall, {
            taken,
            frontend: ports.temporal,
            ui: ports.ui,
            postgres: ports.postgres,
            timeoutMs,
            record,
            log,
          }),
        ),
      );
    }
    record();
    await Promise.all(waits);
    record();
    log(`services ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return running;
  } catch (err) {
    // A wait that failed leaves the others running; stopStack ends every recorded process.
    record();
    await stopStack(paths);
    const names = [
      'temporal',
      'temporal-ui',
      ...(kafkaLayout?.nodes.map((n) => n.name) ?? []),
      'postgres',
      'codec',
      'zipkin',
      'schema-registry',
    ];
    const logs = names
      .filter((n) => existsSync(join(paths.logs, `${n}.log`)))
      .map((n) => `--- ${n}.log (tail) ---\n${tailOf(join(paths.logs, `${n}.log`))}`)
      .join('\n');
    throw new Error(`stack failed to start: ${(err as Error).message}\n${logs}`, { cause: err });
  }
}

interface RealServerStart {
  taken: Set<number>;
  frontend: number;
  ui: number;
  postgres: number;
  timeoutMs: number;
  record: () => void;
  log: (m: string) => void;
}

/**
 * The real server once Postgres is up: its databases and schemas, its config, the server,
 * the namespace and search attributes, then its Web UI.
 */
async function startRealServer(
  stack: RunningStack,
  install: TemporalServerInstall & { ui: string },
  o: RealServerStart,
): Promise<void> {
  const { state, paths } = stack;
  await prepareTemporalDatabases(install.sqlTool, o.postgres);
  const serverPorts = await pickServerPorts(o.taken, o.frontend);
  const configFile = writeTemporalServerConfig(paths, serverPorts, o.postgres);
  state.temporalServer = { ports: serverPorts, uiPort: o.ui, configFile };
  const serverStarted = Date.now();
  state.pids.temporal = startTemporalServer(paths, install.server, configFile);
  state.ports.push(...Object.values(serverPorts));
  o.record();
  await readyWhileAlive(
    state.pids.temporal,
    'temporal',
    waitForTemporalServer(o.frontend, o.timeoutMs),
  );
  o.log(`Temporal server ready in ${((Date.now() - serverStarted) / 1000).toFixed(1)} s`);
  state.pids['temporal-ui'] = startTemporalUi(paths, install.ui, {
    port: o.ui,
    frontend: state.env.TEMPORAL_ADDRESS,
    codecEndpoint: state.codecUrl,
  });
  state.ports.push(o.ui);
  o.record();
  await readyWhileAlive(
    state.pids['temporal-ui'],
    'temporal-ui',
    waitForTemporalUi(o.ui, o.timeoutMs),
  );
}
