/**
 * The four systems of `npm run bench:peers`, each started on its own topic and schemas and
 * stopped (with its data) afterwards. Each runs its own defaults, which is what its docs
 * recommend: onceflow's bridge starts 32 workflows at a time (its default); a Restate Kafka
 * subscription runs one invocation per key at a time, keys in parallel, with no global limit;
 * kafkajs-receive enqueues batches of 250 on an unlimited internal queue. The only shared knob
 * is the Postgres pool of the apps' inventory (32, like onceflow's default concurrency).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { productionArgs } from '../../pipeline/production';
import { pickPort } from '../../stack/ports';
import { waitFor } from '../../../src/util/wait';
import {
  PEERS_DIR,
  startNodeProcess,
  startProcess,
  stopProcess,
  type SystemProcess,
} from './processes';

export interface SystemContext {
  run: string;
  topic: string;
  groupId: string;
  inventorySchema: string;
  providersUrl: string;
  /** TEMPORAL_ADDRESS, KAFKA_BROKERS, DATABASE_URL of the stack. */
  stackEnv: Record<string, string>;
  logs: string;
  concurrency: number;
  temporalPid?: number;
  /** Which Temporal the stack runs (ONCEFLOW_TEMPORAL), for the report's labels. */
  temporal: 'dev' | 'server';
  ports: Set<number>;
}

export interface PeerSystem {
  name: 'onceflow' | 'plain-temporal' | 'restate' | 'dbos';
  /** What the system got and why, printed with the table. */
  settings: string;
  processes: SystemProcess[];
  start(): Promise<void>;
  stop(): Promise<void>;
}

const peerRequire = createRequire(join(PEERS_DIR, 'package.json'));

/** Version of an installed peer package, for the report. */
export function peerVersion(name: string): string {
  // Read from the file: not every package exports its package.json.
  const file = join(PEERS_DIR, 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${await res.text()}`);
}

function appEnv(ctx: SystemContext, port: number): Record<string, string> {
  return {
    DATABASE_URL: ctx.stackEnv.DATABASE_URL!,
    KAFKA_BROKERS: ctx.stackEnv.KAFKA_BROKERS!,
    PEER_INVENTORY_SCHEMA: ctx.inventorySchema,
    PROVIDERS_URL: ctx.providersUrl,
    PEER_PORT: String(port),
    PEER_TOPIC: ctx.topic,
    PEER_GROUP_ID: ctx.groupId,
    PEER_CONCURRENCY: String(ctx.concurrency),
    NODE_ENV: 'production',
  };
}

/** onceflow as `npm run bench` runs it: bridge → the stack's Temporal → worker. */
export function onceflowSystem(ctx: SystemContext): PeerSystem {
  const processes: SystemProcess[] = [];
  const temporal =
    ctx.temporal === 'server' ? 'Temporal server (PostgreSQL)' : 'Temporal dev server';
  return {
    name: 'onceflow',
    settings:
      `bridge BRIDGE_START_CONCURRENCY=${ctx.concurrency} (default), worker defaults ` +
      '(100 activities, 40 workflow tasks), LOG_LEVEL=warn; both compiled with their heap ' +
      `limits (npm run start:worker|bridge); Temporal: the stack's ${temporal}`,
    processes,
    async start() {
      const env = {
        ...ctx.stackEnv,
        KAFKA_TOPICS: ctx.topic,
        KAFKA_GROUP_ID: ctx.groupId,
        TEMPORAL_TASK_QUEUE: `${ctx.run}_tq`,
        DATABASE_SCHEMA: ctx.inventorySchema,
        PROVIDERS_URL: ctx.providersUrl,
        BRIDGE_START_CONCURRENCY: String(ctx.concurrency),
        WORKER_METRICS_PORT: String(await pickPort(9665, ctx.ports)),
        BRIDGE_METRICS_PORT: String(await pickPort(9664, ctx.ports)),
        LOG_LEVEL: 'warn',
      };
      if (ctx.temporalPid)
        processes.push({
          name: `${temporal.toLowerCase()} (shared)`,
          pid: ctx.temporalPid,
          shared: true,
        });
      // As production runs them (package.json start:*, compiled by the harness at start).
      for (const name of ['worker', 'bridge'] as const)
        processes.push(
          startProcess(`onceflow-${name}`, process.execPath, productionArgs(name), {
            env,
            logs: ctx.logs,
          }),
        );
    },
    async stop() {
      for (const p of processes.slice().reverse()) await stopProcess(p);
    },
  };
}

/**
 * Temporal and kafkajs as Temporal's samples would write them, on the stack's Temporal: a
 * kafkajs consumer starting one workflow per record with its event ID as the workflow ID
 * (REJECT_DUPLICATE), and a worker running the same three effects as activities with the
 * SDK's defaults; no claim, no ledger, no encryption, no versioning.
 */
export function plainTemporalSystem(ctx: SystemContext): PeerSystem {
  const processes: SystemProcess[] = [];
  const temporal =
    ctx.temporal === 'server' ? 'Temporal server (PostgreSQL)' : 'Temporal dev server';
  return {
    name: 'plain-temporal',
    settings:
      'a kafkajs consumer (eachMessage, every partition at once, auto-commit) starting a ' +
      'workflow per record, workflow ID = event ID, REJECT_DUPLICATE; a worker with the SDK ' +
      "defaults (plainOrder: reserve, charge, email as activities, default retry policy); the reservation's " +
      'key, no order claim, no ledger; default data converter (no encryption), unversioned; ' +
      `both under tsx; Temporal: the stack's ${temporal}`,
    processes,
    async start() {
      const env = {
        ...appEnv(ctx, 0),
        TEMPORAL_ADDRESS: ctx.stackEnv.TEMPORAL_ADDRESS!,
        PLAIN_TASK_QUEUE: `${ctx.run}_tq`,
      };
      if (ctx.temporalPid)
        processes.push({
          name: `${temporal.toLowerCase()} (shared)`,
          pid: ctx.temporalPid,
          shared: true,
        });
      for (const name of ['worker', 'consumer'])
        processes.push(
          startNodeProcess(`plain-${name}`, `harness/bench/peers/plain-temporal/${name}.ts`, {
            env,
            logs: ctx.logs,
          }),
        );
    },
    async stop() {
      for (const p of processes.slice().reverse()) await stopProcess(p);
    },
  };
}

/** Restate: the server binary from npm, the TypeScript service, a Kafka subscription. */
export function restateSystem(ctx: SystemContext): PeerSystem {
  const processes: SystemProcess[] = [];
  let baseDir: string | undefined;
  return {
    name: 'restate',
    settings:
      'server defaults (24 partitions, log-filter warn, telemetry off); Kafka subscription ' +
      'auto.offset.reset=earliest; virtual object per order (one invocation per key, keys in ' +
      'parallel: no global in-flight knob); service pool max ' +
      `${ctx.concurrency}`,
    processes,
    async start() {
      baseDir = mkdtempSync(join(tmpdir(), 'onceflow-peers-restate-'));
      const admin = await pickPort(19070, ctx.ports);
      const ingress = await pickPort(18080, ctx.ports);
      const node = await pickPort(15122, ctx.ports);
      const svc = await pickPort(19080, ctx.ports);
      const pkg = `@restatedev/restate-server-${process.platform}-${process.arch}`;
      const bin = join(
        dirname(peerRequire.resolve(`${pkg}/package.json`)),
        'bin',
        'restate-server',
      );
      processes.push(
        startProcess('restate-server', bin, ['--no-logo'], {
          env: {
            RESTATE_BASE_DIR: baseDir,
            RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
            RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
            RESTATE_BIND_PORT: String(node),
            RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${node}/`,
            RESTATE_LOG_FILTER: 'warn',
            RESTATE_DISABLE_TELEMETRY: 'true',
          },
          logs: ctx.logs,
          cwd: baseDir,
        }),
      );
      processes.push(
        startNodeProcess('restate-service', 'harness/bench/peers/apps/restate-service.ts', {
          env: appEnv(ctx, svc),
          logs: ctx.logs,
          imports: [resolve(PEERS_DIR, 'with-resolvers.ts')],
        }),
      );
      const adminUrl = `http://127.0.0.1:${admin}`;
      await waitFor(
        async () => {
          for (const p of processes)
            if (p.child?.exitCode !== null) throw new Error(`${p.name} exited; see ${p.logFile}`);
          return (await fetch(`${adminUrl}/health`).catch(() => undefined))?.ok === true;
        },
        { timeoutMs: 60_000, what: 'the Restate server' },
      );
      await waitFor(
        async () =>
          post(`${adminUrl}/deployments`, { uri: `http://127.0.0.1:${svc}` }).then(
            () => true,
            () => false,
          ),
        { timeoutMs: 60_000, what: 'the Restate service to register' },
      );
      await post(`${adminUrl}/kafka-clusters`, {
        name: 'bench',
        properties: { 'bootstrap.servers': ctx.stackEnv.KAFKA_BROKERS },
      });
      await post(`${adminUrl}/subscriptions`, {
        source: `kafka://bench/${ctx.topic}`,
        sink: 'service://Orders/placed',
        options: { 'auto.offset.reset': 'earliest', 'group.id': ctx.groupId },
      });
    },
    async stop() {
      for (const p of processes.slice().reverse()) await stopProcess(p);
      if (baseDir) rmSync(baseDir, { recursive: true, force: true });
    },
  };
}

/** The stack's superuser URL (the stack's Postgres trusts `postgres` on 127.0.0.1). */
function superuserUrl(url: string): string {
  const u = new URL(url);
  u.username = 'postgres';
  u.password = '';
  return u.toString();
}

/** DBOS: one app process, its system database created by DBOS on the stack's Postgres. */
export function dbosSystem(ctx: SystemContext): PeerSystem {
  const processes: SystemProcess[] = [];
  const sysDb = `${ctx.run}_dbos`;
  const dbUrl = ctx.stackEnv.DATABASE_URL!;
  const asRole = async <T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  return {
    name: 'dbos',
    settings:
      'dbos-sdk 4.24.16; kafkajs-receive 4.0.2 defaults (a workflow started per record from ' +
      'eachMessage, no queue: no in-flight limit); the reservation a DBOS transaction ' +
      `(@dbos-inc/postgres-datasource 4.24.16, postgres.js pool max ${ctx.concurrency}, at most ` +
      `${ctx.concurrency} reservations in flight, its completion table in the run's inventory ` +
      'schema); the transaction and the charge and email steps retried up to 10 times, 1 s ' +
      "apart; logLevel warn; system database on the stack's Postgres",
    processes,
    async start() {
      // DBOS creates its system database: the bench's role needs CREATEDB (granted once, by the
      // stack's superuser; the product never needs it).
      const role = new URL(dbUrl).username;
      const canCreate = await asRole(dbUrl, async (c) => {
        const { rows } = await c.query<{ rolcreatedb: boolean }>(
          'SELECT rolcreatedb FROM pg_roles WHERE rolname = current_user',
        );
        return rows[0]?.rolcreatedb === true;
      });
      if (!canCreate)
        await asRole(superuserUrl(dbUrl), (c) => c.query(`ALTER ROLE ${role} CREATEDB`));
      const sysUrl = new URL(dbUrl);
      sysUrl.pathname = `/${sysDb}`;
      processes.push(
        startNodeProcess('dbos-app', 'harness/bench/peers/apps/dbos-app.ts', {
          env: { ...appEnv(ctx, 0), DBOS_SYSTEM_DATABASE_URL: sysUrl.toString() },
          logs: ctx.logs,
        }),
      );
    },
    async stop() {
      for (const p of processes.slice().reverse()) await stopProcess(p);
      await asRole(dbUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${sysDb} WITH (FORCE)`)).catch(
        () => undefined,
      );
    },
  };
}
