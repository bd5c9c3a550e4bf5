import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SearchAttributeType } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time';
import { VERSIONS, type StackPaths } from './paths';
import { installGoTool, type GoTool } from './go-install';
import { spawnService } from './processes';
import {
  FAIRNESS_DYNAMIC_CONFIG,
  readExtraDynamicConfig,
  type DynamicConfigValue,
} from './temporal-dynamic-config';
import { TEMPORAL_DB } from './temporal-server-db';
import { waitFor } from '../../src/util/wait';
import { SEARCH_ATTRIBUTE } from '../../src/temporal/search-attributes';

/**
 * The Temporal server binary (frontend, history, matching and worker services in one
 * process). Static, without the optional gRPC modules it does not need here.
 */
export const SERVER_TOOL: GoTool = {
  pkg: 'go.temporal.io/server/cmd/server',
  version: VERSIONS.temporalServer,
  binary: 'temporal-server',
  tags: ['disable_grpc_modules'],
};

/** Its schema tool, from the same module (seconds to build once the server is built). */
export const SQL_TOOL: GoTool = {
  pkg: 'go.temporal.io/server/cmd/tools/sql',
  version: VERSIONS.temporalServer,
  binary: 'temporal-sql-tool',
  tags: ['disable_grpc_modules'],
};

/** History shards. Fixed at the first start (the server refuses a change afterwards). */
export const HISTORY_SHARDS = 4;

/** Retention of the `default` namespace the stack registers, as in docker-compose.yml. */
const DEFAULT_NAMESPACE_RETENTION_MS = 72 * 60 * 60 * 1000;

/** Every port the server listens on: gRPC and ringpop membership per service, frontend HTTP. */
export interface TemporalServerPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

export interface TemporalServerInstall {
  server: string;
  sqlTool: string;
}

/** Builds (once; cached under the stack's bin folder) the server and its schema tool. */
export async function installTemporalServer(
  paths: StackPaths,
  log: (m: string) => void,
): Promise<TemporalServerInstall> {
  // One after the other: the tool reuses the server's compiled packages from the Go cache.
  const server = await installGoTool(paths.bin, SERVER_TOOL, log);
  const sqlTool = await installGoTool(paths.bin, SQL_TOOL, log);
  return { server, sqlTool };
}

function rpc(grpcPort: number, membershipPort: number, httpPort?: number): object {
  return {
    rpc: { grpcPort, membershipPort, bindOnIP: '127.0.0.1', ...(httpPort ? { httpPort } : {}) },
  };
}

function sqlStore(database: string, postgresPort: number, maxConns: number): object {
  return {
    sql: {
      pluginName: 'postgres12',
      databaseName: database,
      connectAddr: `127.0.0.1:${postgresPort}`,
      connectProtocol: 'tcp',
      user: TEMPORAL_DB.user,
      password: '',
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  };
}

/**
 * Dynamic config: what the dev server gets on its command line (harness/stack/temporal.ts) that
 * onceflow needs, so both servers run onceflow alike; ONCEFLOW_TEMPORAL_DYNAMIC_CONFIG adds to
 * it. Search attributes need no cache flag here: the stack waits until the frontend's
 * namespace cache has them.
 */
const DYNAMIC_CONFIG: Record<string, DynamicConfigValue> = {
  ...FAIRNESS_DYNAMIC_CONFIG,
  'frontend.rps': 10_000,
  'frontend.namespaceRPS': 10_000,
  // The dev server's own default; the server's (10/s) throttles the ops CLI and reconcile.
  'frontend.namespaceRPS.visibility': 100,
  'frontend.MaxConcurrentBatchOperationPerNamespace': 10,
  // Each test's worker is a deployment of its own (its task queue names it): see temporal.ts.
  'matching.maxDeployments': 100000,
};

/**
 * Writes the server's config (modelled on the module's config/development-postgres12.yaml,
 * with the stack's ports) and its dynamic config. JSON is YAML, so no YAML writer is needed.
 * Returns the config file.
 */
export function writeTemporalServerConfig(
  paths: StackPaths,
  ports: TemporalServerPorts,
  postgresPort: number,
): string {
  const dir = paths.temporalServerConfig;
  mkdirSync(dir, { recursive: true });
  const dynamicFile = join(dir, 'dynamicconfig.yaml');
  writeFileSync(
    dynamicFile,
    `${JSON.stringify(
      Object.fromEntries(
        Object.entries({ ...DYNAMIC_CONFIG, ...readExtraDynamicConfig() }).map(([k, v]) => [
          k,
          [{ value: v }],
        ]),
      ),
      null,
      2,
    )}\n`,
  );
  const frontend = `127.0.0.1:${ports.frontend}`;
  const config = {
    log: { stdout: true, level: 'warn', format: 'json' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: HISTORY_SHARDS,
      // Per service: the four services in this process open a pool each (4 x 20 at most,
      // within the stack's max_connections of 200 beside onceflow's pools).
      datastores: {
        'postgres-default': sqlStore(TEMPORAL_DB.persistence, postgresPort, 16),
        'postgres-visibility': sqlStore(TEMPORAL_DB.visibility, postgresPort, 4),
      },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: {
      frontend: rpc(ports.frontend, ports.frontendMembership, ports.frontendHttp),
      history: rpc(ports.history, ports.historyMembership),
      matching: rpc(ports.matching, ports.matchingMembership),
      worker: rpc(ports.worker, ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: frontend,
          httpAddress: `127.0.0.1:${ports.frontendHttp}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: {
      archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    },
    publicClient: { hostPort: frontend },
    dynamicConfigClient: { filepath: dynamicFile, pollInterval: '10s' },
  };
  const file = join(dir, 'config.yaml');
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
  return file;
}

/** Starts the server on a config written by writeTemporalServerConfig; returns its pid. */
export function startTemporalServer(paths: StackPaths, server: string, configFile: string): number {
  return spawnService({
    name: 'temporal',
    command: server,
    // No authorizer on the loopback stack; the flag says so instead of a warning per start.
    args: ['--config-file', configFile, '--allow-no-auth', 'start'],
    logFile: join(paths.logs, 'temporal.log'),
  });
}

const INDEXED_TYPE: Partial<Record<SearchAttributeType, temporal.api.enums.v1.IndexedValueType>> = {
  [SearchAttributeType.KEYWORD]: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
};

function searchAttributeTypes(): Record<string, temporal.api.enums.v1.IndexedValueType> {
  return Object.fromEntries(
    Object.values(SEARCH_ATTRIBUTE).map((key) => {
      const type = INDEXED_TYPE[key.type];
      if (type === undefined) throw new Error(`${key.name}: no indexed type for ${key.type}`);
      return [key.name, type];
    }),
  );
}

function isNotFound(err: unknown): boolean {
  return (err as { code?: number }).code === 5; // gRPC NOT_FOUND
}

/**
 * Registers what the dev server creates by itself: the `default` namespace (with a retention)
 * and onceflow's search attributes on it, through the operator service as any operator of a
 * real cluster would. Each only when missing, so a restart changes nothing.
 */
async function registerNamespace(connection: Connection): Promise<void> {
  const namespace = 'default';
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(DEFAULT_NAMESPACE_RETENTION_MS),
    });
  }
  const wanted = searchAttributeTypes();
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.fromEntries(
    Object.entries(wanted).filter(([name]) => customAttributes?.[name] === undefined),
  );
  if (Object.keys(missing).length > 0) {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
  }
}

/**
 * Waits until the frontend answers, registers the namespace and search attributes, and waits
 * until a visibility query on every search attribute succeeds: the frontend validates queries
 * against its namespace cache (refreshed every 10 s), so only then can the bridge start
 * workflows carrying them.
 */
export async function waitForTemporalServer(
  frontendPort: number,
  timeoutMs: number,
): Promise<void> {
  const address = `127.0.0.1:${frontendPort}`;
  const deadline = Date.now() + timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const connect = () => Connection.connect({ address, connectTimeout: 1000 });
  await waitFor(
    async () => {
      const connection = await connect();
      try {
        await connection.workflowService.getClusterInfo({});
        return true;
      } finally {
        await connection.close();
      }
    },
    { timeoutMs: left(), intervalMs: 300, what: `Temporal server on ${address}` },
  );
  const connection = await connect();
  try {
    await waitFor(
      async () => {
        await registerNamespace(connection);
        return true;
      },
      { timeoutMs: left(), intervalMs: 500, what: 'the default namespace and search attributes' },
    );
    const query = Object.keys(searchAttributeTypes())
      .map((name) => `${name} = 'stack-probe'`)
      .join(' AND ');
    await waitFor(
      async () => {
        await connection.workflowService.countWorkflowExecutions({ namespace: 'default', query });
        return true;
      },
      { timeoutMs: left(), intervalMs: 500, what: 'the search attributes in the frontend' },
    );
  } finally {
    await connection.close();
  }
}
