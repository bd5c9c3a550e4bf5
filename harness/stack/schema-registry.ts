import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSIONS, type StackPaths } from './paths';
import { ensureAptPackages } from './apt';
import { findJava, JavaNotFoundError, MIN_REGISTRY_JAVA } from './java';
import { spawnService } from './processes';
import { runCommand } from './run-command';
import { StackSettingError } from './topology';
import { waitFor } from '../../src/util/wait';

/**
 * The local stack's Schema Registry: Apicurio Registry (io.apicurio:apicurio-registry-app,
 * classifier `all`, a Quarkus fast-jar) from Maven Central, on a Java 21 or newer, schemas kept
 * in an H2 file in the state folder (they outlive a restart). onceflow's bridge reads its Confluent-compatible
 * API at `/apis/ccompat/v7`; Apicurio's own serdes use `/apis/registry/v3`.
 */

/**
 * The stack's setting for it: `auto` (the default) runs it when a Java 21+ is found, `on`
 * requires it, `off` skips it. On by default: its cost is small (docs/development.md).
 */
export const SCHEMA_REGISTRY_STACK_SETTING = 'ONCEFLOW_SCHEMA_REGISTRY';

export type RegistryMode = 'auto' | 'on' | 'off';

/** ONCEFLOW_SCHEMA_REGISTRY as a mode; anything else is a setting error naming it. */
export function registryMode(env: NodeJS.ProcessEnv): RegistryMode {
  const value = (env[SCHEMA_REGISTRY_STACK_SETTING] ?? '').trim().toLowerCase();
  if (value === '') return 'auto';
  if (value === 'auto' || value === 'on' || value === 'off') return value;
  throw new StackSettingError(
    SCHEMA_REGISTRY_STACK_SETTING,
    `must be auto, on or off, got "${value}"`,
  );
}

/** Whether the stack tries to run a registry at all. */
export function registryWanted(env: NodeJS.ProcessEnv): boolean {
  return registryMode(env) !== 'off';
}

/** What the registry runs from: its unpacked fast-jar and the Java that runs it. */
export interface RegistryInstall {
  dir: string;
  java: string;
}

/** Unpacks Apicurio once (Maven verifies the download's checksum) into the state folder. */
export async function installSchemaRegistry(
  paths: StackPaths,
  log: (m: string) => void,
  mode: RegistryMode = 'auto',
): Promise<RegistryInstall | undefined> {
  let java: string;
  try {
    java = await findJava(MIN_REGISTRY_JAVA);
  } catch (err) {
    // `auto` on a machine without Java 21+: the stack runs without a registry, and says so.
    if (!(err instanceof JavaNotFoundError) || mode === 'on') throw err;
    log(`no schema registry: ${err.message}`);
    return undefined;
  }
  const dir = join(paths.cache, `apicurio-registry-${VERSIONS.apicurioRegistry}`);
  const marker = join(dir, '.complete');
  if (existsSync(marker)) return { dir, java };
  await ensureAptPackages({ mvn: 'maven' }, log);
  log(`installing Apicurio Registry ${VERSIONS.apicurioRegistry} from Maven Central`);
  const tmp = join(paths.cache, `apicurio-${process.pid}.tmp`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const artifact = `apicurio-registry-app-${VERSIONS.apicurioRegistry}-all.tar.gz`;
    await runCommand('mvn', [
      '-q',
      '-B',
      'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy',
      `-Dartifact=io.apicurio:apicurio-registry-app:${VERSIONS.apicurioRegistry}:tar.gz:all`,
      `-DoutputDirectory=${tmp}`,
    ]);
    const unpacked = join(tmp, 'app');
    mkdirSync(unpacked);
    await runCommand('tar', ['-xzf', join(tmp, artifact), '-C', unpacked]);
    if (!existsSync(join(unpacked, 'quarkus-run.jar')))
      throw new Error(`Apicurio install incomplete: no quarkus-run.jar in ${artifact}`);
    writeFileSync(join(unpacked, '.complete'), `${VERSIONS.apicurioRegistry}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(unpacked, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return { dir, java };
}

/** The registry's Confluent-compatible API, as SCHEMA_REGISTRY_URL names it. */
export function registryApiUrl(port: number): string {
  return `http://127.0.0.1:${port}/apis/ccompat/v7`;
}

/** The registry's ports: its API, and the management interface Quarkus builds in. */
export interface RegistryPorts {
  http: number;
  management: number;
}

/**
 * Starts Apicurio on loopback, its heap bounded so it fits beside the brokers on a small
 * machine. Its management interface (health, metrics) is built in and cannot be turned off at
 * run time; it would listen on 0.0.0.0:9000, so a second stack's registry (or anything else on
 * 9000) would fail to start: it gets a loopback port of its own. Returns the pid.
 */
export function startSchemaRegistry(
  paths: StackPaths,
  install: RegistryInstall,
  ports: RegistryPorts,
  logName = 'schema-registry',
): number {
  mkdirSync(paths.schemaRegistryData, { recursive: true });
  return spawnService({
    name: logName,
    command: install.java,
    args: ['-Xms64m', '-Xmx384m', '-XX:+UseSerialGC', '-jar', 'quarkus-run.jar'],
    cwd: install.dir,
    logFile: join(paths.logs, `${logName}.log`),
    env: {
      ...process.env,
      QUARKUS_HTTP_HOST: '127.0.0.1',
      QUARKUS_HTTP_PORT: String(ports.http),
      QUARKUS_MANAGEMENT_HOST: '127.0.0.1',
      QUARKUS_MANAGEMENT_PORT: String(ports.management),
      // Schemas in an H2 file in the state folder, not Apicurio's default memory: records on the
      // stack's topics outlive a restart, and their schema IDs must still be known then.
      APICURIO_DATASOURCE_URL: `jdbc:h2:file:${join(paths.schemaRegistryData, 'registry')};DB_CLOSE_ON_EXIT=FALSE`,
      QUARKUS_OTEL_ENABLED: 'false',
    },
  });
}

/**
 * Waits until the registry at `url` (its Confluent-compatible API) answers: the stack does
 * not wait for it, whoever uses it first does. The timeout names the stack's log of it.
 */
export async function waitForSchemaRegistry(url: string, timeoutMs = 120_000): Promise<void> {
  await waitFor(async () => (await fetch(`${url}/subjects`)).ok, {
    timeoutMs,
    intervalMs: 250,
    what: `the schema registry at ${url} (the local stack's logs/schema-registry.log says why not)`,
  });
}
