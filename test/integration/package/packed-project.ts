// A team's project as it starts: an empty folder with the package as npm packs it installed
// (nothing from this repository on its module path), its program's files, its tsc, and the
// program run against the running stack. The tests of this folder share it.
import { strict as assert } from 'node:assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Connection, type Client } from '@temporalio/client';
import type { Kafka } from 'kafkajs';
import pino from 'pino';
import type pg from 'pg';
import { migrate } from '../../../src/db/migrate';
import { createPool } from '../../../src/db/pool';
import { createKafka } from '../../../src/kafka/kafka-client';
import { createClient } from '../../../src/temporal/connection';
import { waitFor } from '../../../src/util/wait';
import { testConfig } from '../../support/services';

const ROOT = resolve(__dirname, '../../..');

/** Runs a command to its end; a non-zero exit fails the test with its output. */
export function runChecked(command: string, args: string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 600_000 });
  assert.equal(
    r.status,
    0,
    `${command} ${args.join(' ')} (exit ${r.status}):\n${r.stdout}\n${r.stderr}`,
  );
  return r.stdout;
}

/**
 * A new folder holding a project named `name` with the packed package (npm pack: prepack
 * builds dist/) and zod installed. Returns the folder.
 */
export function createPackedProject(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `onceflow-${name}-`));
  runChecked('npm', ['pack', '--silent', '--pack-destination', dir], ROOT);
  const tarball = readdirSync(dir).find((f) => /^onceflow-.*\.tgz$/.test(f));
  assert.ok(tarball, 'npm pack wrote a tarball');
  writeFileSync(join(dir, 'package.json'), `{ "name": "${name}", "private": true }\n`);
  runChecked(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`, 'zod'],
    dir,
  );
  return dir;
}

/** A team's strict project's compiler options (tsconfig.json's JSON form). */
export function projectCompilerOptions() {
  return {
    module: 'node16',
    moduleResolution: 'node16',
    target: 'ES2022',
    strict: true,
    noEmit: true,
    // As Temporal's samples do: @temporalio/common's types import `ms` without its types.
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [resolve(ROOT, 'node_modules/@types')],
  };
}

/**
 * tsc over `files` as a team's project compiles them (`tsconfig`, written here): `onceflow`
 * and `onceflow/workflow` resolve through the package's exports. Returns its exit and output.
 */
export function compileProject(
  dir: string,
  files: string[],
  tsconfig = 'tsconfig.json',
): { status: number | null; output: string } {
  const config = { compilerOptions: projectCompilerOptions(), files };
  writeFileSync(join(dir, tsconfig), JSON.stringify(config));
  const tsc = require.resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(dir, tsconfig), '--pretty', 'false'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** The project's `main.ts`, running (`node --import tsx main.ts`), and what it printed last. */
export interface RunningProgram {
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts the project's main.ts with the environment's settings and `env` over them. */
export function startProgram(dir: string, env: Record<string, string>): RunningProgram {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
    cwd: dir,
    env: { ...process.env, WORKER_METRICS_PORT: '0', BRIDGE_METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (c: Buffer) => (output = (output + c.toString()).slice(-8000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return {
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const exited = await waitFor(() => child.exitCode !== null || child.signalCode !== null, {
        timeoutMs: 60_000,
        what: 'the program to stop on SIGTERM',
      }).catch(() => false);
      if (!exited) child.kill('SIGKILL');
    },
  };
}

/** What a test of a team's program reads and writes of the running stack, and its end. */
export interface TeamWorld {
  /** The program's schema, migrated, with its `effects` table (key, what). */
  pool: pg.Pool;
  kafka: Kafka;
  client: Client;
  close(): Promise<void>;
}

/** The team's schema and its topic (made as someone else made it: no DLQ topic). */
export async function openTeamWorld(spec: {
  schema: string;
  topic: string;
  partitions?: number;
}): Promise<TeamWorld> {
  const config = testConfig();
  const pool = createPool(config.database, { schema: spec.schema });
  await migrate(pool, { schema: spec.schema });
  await pool.query('CREATE TABLE effects (key text PRIMARY KEY, what text NOT NULL)');
  const kafka = createKafka(config.kafka, 'test', pino({ level: 'silent' }));
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = [{ topic: spec.topic, numPartitions: spec.partitions ?? 1 }];
    await admin.createTopics({ waitForLeaders: true, topics });
  } finally {
    await admin.disconnect();
  }
  const connection = await Connection.connect({ address: config.temporal.address });
  return {
    pool,
    kafka,
    client: createClient(connection, config),
    async close() {
      await pool.end();
      await connection.close();
    },
  };
}
