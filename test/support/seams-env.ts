// The seams test domain on a Temporal dev server of its own (optionally with lowered history
// limits), a worker running it, and the helpers its tests use: faults by step, the calls and
// effects each key saw, starting a run, waiting for its status.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, type Client, type WorkflowHandle } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type pg from 'pg';
import { stackPaths } from '../../harness/stack/paths';
import { pickPort } from '../../harness/stack/ports';
import { stopProcessGroup } from '../../harness/stack/processes';
import { installTemporal, startTemporal, waitForTemporal } from '../../harness/stack/temporal';
import { DOMAINS } from '../../src/domains';
import { createClient } from '../../src/temporal/connection';
import { waitFor } from '../../src/util/wait';
import { createWorker } from '../../src/worker/create-worker';
import type { SagaStatus } from '../../src/workflows/saga-status';
import { seams } from './domains/seams';
import { SEAMS_TABLES, type FaultMode } from './domains/seams/activities';
import type { SeamData } from './domains/seams/steps';
import { eventInputOf } from './order-env';
import { createTestDatabase, type TestDatabase } from './providers';
import { testConfig, uniqueName } from './services';
import { workflowBundle } from './workflow-bundle';

/** The pool of the worker, whose settlement statement fails while `failSettle()` says so. */
function faultyPool(pool: pg.Pool, failSettle: () => boolean): pg.Pool {
  const refuse = (text: unknown) =>
    failSettle() && typeof text === 'string' && /UPDATE entity_claims\s+SET settled/.test(text);
  const outage = () =>
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'query')
        return (text: unknown, ...rest: unknown[]) =>
          refuse(typeof text === 'object' ? (text as { text?: string })?.text : text)
            ? Promise.reject(outage())
            : (target.query as (...a: unknown[]) => unknown).call(target, text, ...rest);
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  });
}

export interface SeamsEnv {
  db: TestDatabase;
  client: Client;
  /** The env's own Temporal dev server (for Temporal's CLI). */
  address: string;
  /** While true, the worker's settlement statement meets "connection refused". */
  settleFails: boolean;
  /** Sets how `what`'s calls fail (undefined: they succeed). */
  fault(
    what: string,
    mode: FaultMode | undefined,
    window?: { windowMs: number; intervalMs: number },
  ): Promise<void>;
  /** Every attempt of the entity's calls, in order. */
  callsOf(id: string): Promise<Array<{ key: string; what: string }>>;
  /** The effects done under the entity's keys (their last parts), sorted. */
  effectsOf(id: string): Promise<string[]>;
  start(workflow: string, data: SeamData & Record<string, unknown>): Promise<WorkflowHandle>;
  until(
    h: WorkflowHandle,
    predicate: (s: SagaStatus) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<SagaStatus>;
  close(): Promise<void>;
}

export async function createSeamsEnv(limits: Record<string, number> = {}): Promise<SeamsEnv> {
  const config = testConfig();
  const stateDir = mkdtempSync(join(tmpdir(), 'onceflow-seams-'));
  const taskQueue = uniqueName('seams-tq');
  const ports = { grpc: await pickPort(19433, new Set()), ui: await pickPort(19533, new Set()) };
  const bin = await installTemporal(stackPaths(), () => undefined);
  const pid = startTemporal(stackPaths(stateDir), bin, ports, { dynamicConfig: limits });
  await waitForTemporal(ports, 120_000);
  const address = `127.0.0.1:${ports.grpc}`;
  const db = await createTestDatabase('seams');
  await db.pool.query(SEAMS_TABLES);
  const connection = await Connection.connect({ address });
  const client = createClient(connection, config);
  const workerConnection = await NativeConnection.connect({ address });
  const domains = [...DOMAINS, seams];
  const env: SeamsEnv = {
    db,
    client,
    address,
    settleFails: false,
    fault: async (what, mode, window = { windowMs: 60_000, intervalMs: 500 }) => {
      if (mode === undefined) await db.pool.query('DELETE FROM faults WHERE what = $1', [what]);
      else
        await db.pool.query(
          `INSERT INTO faults (what, mode, window_ms, interval_ms) VALUES ($1, $2, $3, $4)
           ON CONFLICT (what) DO UPDATE SET mode = $2, window_ms = $3, interval_ms = $4`,
          [what, mode, window.windowMs, window.intervalMs],
        );
    },
    callsOf: async (id) =>
      (
        await db.pool.query<{ key: string; what: string }>(
          'SELECT key, what FROM calls WHERE key LIKE $1 ORDER BY n',
          [`seam:${id}:%`],
        )
      ).rows,
    effectsOf: async (id) =>
      (
        await db.pool.query<{ key: string }>(
          'SELECT key FROM effects WHERE key LIKE $1 ORDER BY key',
          [`seam:${id}:%`],
        )
      ).rows.map((r) => r.key.slice(`seam:${id}:`.length)),
    start: (workflow, data) =>
      client.workflow.start(workflow, {
        taskQueue,
        workflowId: uniqueName(`SeamDue:${data.id}`),
        args: [eventInputOf('SeamDue', data.id, data)],
      }),
    until: (h, predicate, what, timeoutMs = 60_000) =>
      waitFor(
        async () => {
          const s = await h.query<SagaStatus>('status');
          return predicate(s) ? s : undefined;
        },
        { timeoutMs, intervalMs: 100, what },
      ),
    close: async () => {
      worker.shutdown();
      await running;
      await workerConnection.close();
      await connection.close();
      await db.pool.end();
      await stopProcessGroup(pid);
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
  const worker: Worker = await createWorker({
    domains,
    connection: workerConnection,
    config: {
      ...config,
      temporal: { ...config.temporal, address },
      orders: { ...config.orders, transientRetryWindowMs: 120_000, transientRetryIntervalMs: 500 },
    },
    deps: { pool: faultyPool(db.pool, () => env.settleFails) },
    taskQueue,
    workflowBundle: await workflowBundle({ domains }),
  });
  const running = worker.run();
  return env;
}
