// The real server's side of a differential case: a worker in this process on a task queue of
// its own (the shared Temporal dev server, a fresh Postgres schema for the claims), each case
// started as the `differential` workflow with its case in the input, the same provider and
// operator as the emulator's side. The operator answers a parked call once the run's history
// says nothing else is pending (quiet.ts), as the emulator's `idle()` does.
import {
  Connection,
  WorkflowFailedError,
  type Client,
  type WorkflowHandle,
} from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { findClaim } from '../../../src/db/entity-claim-store';
import { createClient } from '../../../src/temporal/connection';
import { createWorker } from '../../../src/worker/create-worker';
import { statusQuery } from '../../../src/workflows/saga-status';
import { approveSignal } from '../run-model/body';
import { eventInputOf } from '../order-env';
import { createTestDatabase, type TestDatabase } from '../providers';
import { testConfig, uniqueName } from '../services';
import { workflowBundle } from '../workflow-bundle';
import { cancelBeforeStart, type DiffCase } from './cases';
import { answerEntity, models } from './domain';
import type { DiffData } from './domain/workflows';
import { createRecorder, observedOf, type Observed, type Recorder } from './observe';
import { createOperator } from './operator';
import { quietness } from './quiet';

/** How often the driver reads a run's history while it waits for it to be quiet or closed. */
const POLL_MS = 200;
/** A case that takes longer than this on the server is reported, not waited for. */
const CASE_TIMEOUT_MS = 120_000;

export interface RealSide {
  /** Starts a case whose Temporal cancel comes before its first workflow task (no worker yet). */
  prestart(dc: DiffCase): Promise<void>;
  /** Starts the worker: call once, after every prestart. */
  startWorker(): Promise<void>;
  /** Runs a case (started now unless prestarted) to its end, the operator answering parks. */
  run(dc: DiffCase): Promise<Observed>;
  close(): Promise<void>;
}

export async function createRealSide(): Promise<RealSide> {
  const config = testConfig();
  const taskQueue = uniqueName('diff-tq');
  const db: TestDatabase = await createTestDatabase('diff');
  const connection = await Connection.connect({ address: config.temporal.address });
  const client: Client = createClient(connection, config);
  const workerConnection = await NativeConnection.connect({ address: config.temporal.address });
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  /** Every case's recorder, answering its entity's calls from before its start to its end. */
  const recorders = new Map<string, { rec: Recorder; forget(): void }>();
  const recorderOf = (dc: DiffCase) => {
    let got = recorders.get(dc.workflowId);
    if (!got) {
      const rec = createRecorder(dc.case);
      got = { rec, ...answerEntity(dc.entityId, rec) };
      recorders.set(dc.workflowId, got);
    }
    return got;
  };
  const inputOf = (dc: DiffCase) =>
    eventInputOf<DiffData>('ModelDue', dc.entityId, { id: dc.entityId, case: dc.case });
  const approvals = (dc: DiffCase) =>
    dc.case.approved.map((name) => ({
      signal: approveSignal(name).name,
      arg: { by: `approver of ${name}` },
    }));

  /** Starts the case; a cancel signal before the start, or the first approval, goes with it. */
  async function start(dc: DiffCase): Promise<WorkflowHandle> {
    const signals: Array<{ signal: string; arg: object }> = [
      ...(cancelBeforeStart(dc.case) === 'signal'
        ? [{ signal: 'cancel', arg: { reason: 'model', by: 'model' } }]
        : []),
      ...approvals(dc),
    ];
    const options = { taskQueue, workflowId: dc.workflowId, args: [inputOf(dc)] as [unknown] };
    const [first, ...rest] = signals;
    const handle = first
      ? await client.workflow.signalWithStart('differential', {
          ...options,
          signal: first.signal,
          signalArgs: [first.arg],
        })
      : await client.workflow.start('differential', options);
    // The SDK keeps a signal until the run sets its handler: these arrive before any wait ends.
    for (const s of rest) await handle.signal(s.signal, s.arg);
    return handle;
  }

  /** Waits until the run is closed (true) or quiet (false). */
  async function closedOrQuiet(handle: WorkflowHandle, deadline: number): Promise<boolean> {
    for (;;) {
      const q = quietness((await handle.fetchHistory()).events ?? []);
      if (q !== 'busy') return q === 'closed';
      if (Date.now() > deadline)
        throw new Error(`${handle.workflowId} still busy after ${CASE_TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  return {
    async prestart(dc) {
      if (worker) throw new Error('prestart before the worker starts');
      recorderOf(dc);
      const handle = await start(dc);
      await handle.cancel();
    },
    async startWorker() {
      worker = await createWorker({
        domains: [models],
        connection: workerConnection,
        config,
        deps: { pool: db.pool },
        taskQueue,
        workflowBundle: await workflowBundle({ domains: [models] }),
      });
      running = worker.run();
    },
    async run(dc) {
      const { rec, forget } = recorderOf(dc);
      try {
        const handle =
          cancelBeforeStart(dc.case) === 'temporal'
            ? client.workflow.getHandle(dc.workflowId)
            : await start(dc);
        const operate = createOperator(dc.case.seed, dc.entityId, rec.provider);
        const parks: string[] = [];
        const deadline = Date.now() + CASE_TIMEOUT_MS;
        while (!(await closedOrQuiet(handle, deadline))) {
          const status = await handle.query(statusQuery);
          const step = status.parked?.step;
          if (!step) throw new Error(`quiet, not closed and nothing parked (step ${status.step})`);
          const move = operate(step);
          parks.push(move.said);
          await handle.signal(move.signal, move.arg);
        }
        const end = await handle.result().then(
          (r: { reason?: string }) => ({ close: 'Completed' as const, reason: r.reason }),
          (err: unknown) => {
            const cause = err instanceof WorkflowFailedError ? err.cause : err;
            if (cause instanceof CancelledFailure)
              return { close: 'Canceled' as const, reason: undefined };
            if (cause instanceof ApplicationFailure)
              return { close: 'Failed' as const, reason: cause.message };
            throw err;
          },
        );
        const status = await handle.query(statusQuery);
        const claim = await findClaim(db.pool, { domain: 'models', entityId: dc.entityId });
        return observedOf(dc.case, rec, status, { parks, settled: claim?.settled, ...end });
      } finally {
        forget();
      }
    },
    async close() {
      worker?.shutdown();
      await running;
      await workerConnection.close();
      await connection.close();
      await db.pool.end();
    },
  };
}
