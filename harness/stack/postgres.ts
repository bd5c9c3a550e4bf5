import { createHash } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import type { StackPaths } from './paths';
import { runCommand } from './run-command';
import { spawnService } from './processes';
import { waitFor } from '../../src/util/wait';
import { installAptPackages } from './apt';

/** Role and database the application uses inside the local cluster. */
export const LOCAL_DB = { user: 'onceflow', database: 'onceflow' } as const;

export interface PostgresInstall {
  binDir: string;
  version: string;
  /** Set when running as root: the server must run as the unprivileged `postgres` user. */
  owner?: { uid: number; gid: number };
  dataDir: string;
}

/** The newest Debian PostgreSQL's bin folder (server and psql), if one is installed. */
export function findBinDir(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : undefined;
}

function lookupUser(name: string): { uid: number; gid: number } | undefined {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** True when `owner` can reach `dir` (every ancestor searchable for it). */
function reachableBy(dir: string, owner: { uid: number; gid: number }): boolean {
  const r = spawnSync('test', ['-x', dir], { uid: owner.uid, gid: owner.gid });
  return r.status === 0;
}

/**
 * Makes Debian's PostgreSQL server available (apt-get install when missing and root) and
 * decides where the cluster lives. PostgreSQL refuses to run as root, so as root the cluster
 * is owned by the `postgres` user; if that user cannot reach the project folder (a checkout
 * under /root), the cluster goes to a per-project folder under /var/tmp instead.
 */
export async function installPostgres(
  paths: StackPaths,
  log: (m: string) => void,
): Promise<PostgresInstall> {
  let binDir = findBinDir();
  if (!binDir) {
    await installAptPackages(['postgresql'], log);
    binDir = findBinDir();
    if (!binDir)
      throw new Error(
        'PostgreSQL server binaries not found under /usr/lib/postgresql after install',
      );
  }
  const version =
    /\(PostgreSQL\) ([\d.]+)/.exec(
      await runCommand(join(binDir, 'postgres'), ['--version']),
    )?.[1] ?? '?';
  if (process.getuid?.() !== 0) return { binDir, version, dataDir: paths.postgresData };

  const owner = lookupUser('postgres');
  if (!owner) throw new Error('running as root but there is no `postgres` user to own the cluster');
  let dataDir = paths.postgresData;
  mkdirSync(resolve(dataDir, '..'), { recursive: true });
  if (!reachableBy(resolve(dataDir, '..'), owner)) {
    const tag = createHash('sha256').update(paths.root).digest('hex').slice(0, 12);
    dataDir = `/var/tmp/onceflow-${tag}/postgres/data`;
    log(`the postgres user cannot reach ${paths.root}; cluster lives in ${dataDir}`);
    mkdirSync(resolve(dataDir, '..'), { recursive: true });
    chownSync(resolve(dataDir, '..'), owner.uid, owner.gid);
  } else {
    chownSync(resolve(dataDir, '..'), owner.uid, owner.gid);
  }
  return { binDir, version, owner, dataDir };
}

/** initdb on first start, then the server on 127.0.0.1:port (TCP only, no unix socket). */
export async function startPostgres(
  paths: StackPaths,
  install: PostgresInstall,
  port: number,
): Promise<number> {
  const ids = install.owner ? { uid: install.owner.uid, gid: install.owner.gid } : {};
  if (!existsSync(join(install.dataDir, 'PG_VERSION'))) {
    await runCommand(
      join(install.binDir, 'initdb'),
      [
        '-D',
        install.dataDir,
        '-U',
        'postgres',
        '--auth=trust',
        '--encoding=UTF8',
        '--no-instructions',
      ],
      { ...ids, cwd: '/' },
    );
  }
  return spawnService({
    name: 'postgres',
    command: join(install.binDir, 'postgres'),
    args: [
      '-D',
      install.dataDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      // Dev stack only: no fsync. Committed data still survives a killed server (the kernel
      // has it); only a machine crash could lose it.
      '-c',
      'fsync=off',
      '-c',
      'max_connections=200',
    ],
    logFile: join(paths.logs, 'postgres.log'),
    cwd: '/',
    ...ids,
  });
}

/** Waits for the server, then creates the application role and database when missing. */
export async function waitForPostgres(port: number, timeoutMs: number): Promise<string> {
  const admin = { host: '127.0.0.1', port, user: 'postgres', database: 'postgres' };
  await waitFor(
    async () => {
      const client = new pg.Client({ ...admin, connectionTimeoutMillis: 1000 });
      // While the server starts up it may drop the connection after connect() failed; without
      // a listener that late 'error' event would crash the process.
      client.on('error', () => undefined);
      await client.connect();
      await client.end();
      return true;
    },
    { timeoutMs, intervalMs: 200, what: `PostgreSQL on 127.0.0.1:${port}` },
  );
  const client = new pg.Client(admin);
  await client.connect();
  try {
    const role = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [LOCAL_DB.user]);
    if (role.rowCount === 0) await client.query(`CREATE ROLE ${LOCAL_DB.user} LOGIN CREATEDB`);
    const db = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [
      LOCAL_DB.database,
    ]);
    if (db.rowCount === 0)
      await client.query(`CREATE DATABASE ${LOCAL_DB.database} OWNER ${LOCAL_DB.user}`);
  } finally {
    await client.end();
  }
  return `postgres://${LOCAL_DB.user}@127.0.0.1:${port}/${LOCAL_DB.database}`;
}
