import { strict as assert } from 'node:assert';
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Config } from '../../../src/config';
import { buildIdOf } from '../../../src/db/workflow-build-store';
import { waitFor } from '../../../src/util/wait';
import { retryStepSignal, type SagaStatus } from '../../../src/workflow';
import { deploysDomain } from '../../support/domains/deploys';
import {
  becomesCurrent,
  startDeploysWorker,
  type DeploysWorker,
} from '../../support/deploys-worker';
import { createOrderEnv, eventInputOf, type OrderEnv } from '../../support/order-env';
import { testConfig, uniqueName } from '../../support/services';
import { withChangeMark, workflowBundle } from '../../support/workflow-bundle';

/** A refresh of the builds, and so a drain's turn, in this test. */
const TURN_MS = 4_000;
/**
 * Older builds holding a parked run each, and the one drain slot they share
 * (WORKER_MAX_DRAINS=1; the current build is the worker's own).
 */
const [BUILDS, SLOTS] = [3, 1];
/**
 * docs/deploying.md, "Drains take turns": a task waiting on an older build is taken within
 * 1 + (BUILDS - 1) / SLOTS turns of Temporal reporting it, plus that report's lag (a few
 * seconds: a stopped worker's sticky queue, the server's statistics) and the drain's start.
 */
const BOUND_MS = TURN_MS * (1 + Math.floor((BUILDS - 1) / SLOTS)) + 10_000 + 10_000;

/**
 * More older builds hold parked runs than a process may drain at once: an operator's retry of
 * each run is taken within the bound, whichever build held the slot when it came.
 */
describe('drains of older builds take turns (real stack)', function () {
  this.timeout(240_000);
  let env: OrderEnv;
  let connection: NativeConnection;
  const config = testConfig();
  /** The config of a worker: WORKER_MAX_DRAINS and WORKER_DRAIN_TURN_MS as given. */
  const withDrains = (maxDrains: number): Config => ({
    ...config,
    worker: { ...config.worker, maxDrains, drainTurnMs: TURN_MS },
  });
  before(async () => {
    env = await createOrderEnv({ inProcessWorker: false });
    await env.db.pool.query('CREATE TABLE effects (key text PRIMARY KEY, what text NOT NULL)');
    connection = await NativeConnection.connect({ address: config.temporal.address });
  });
  after(async () => {
    await connection.close();
    await env.close();
  });

  const start = (taskQueue: string) => {
    const renewalId = uniqueName('renewal');
    return env.client.workflow.start('renewal', {
      taskQueue,
      workflowId: `RenewalDue:${renewalId}`,
      args: [eventInputOf('RenewalDue', renewalId, { renewalId })],
    });
  };
  const waitParked = (h: WorkflowHandle) =>
    waitFor(async () => (await h.query<SagaStatus>('status')).parked?.step === 'email', {
      timeoutMs: 60_000,
      what: `${h.workflowId} charged, then parked on the failing mail API`,
    });
  /** Whether the run completed a workflow task after the signal event with id `after`. */
  const taken = async (h: WorkflowHandle, after: number) =>
    (await h.fetchHistory()).events?.some(
      (e) => Number(e.eventId) > after && e.workflowTaskCompletedEventAttributes,
    ) ?? false;

  it(`takes each build's operator signal within ${BOUND_MS} ms, ${BUILDS} builds to ${SLOTS} drain`, async () => {
    const taskQueue = uniqueName('turns-tq');
    await env.setFaults({ endpoints: { emails: { failBeforeCommitRate: 1 } } });
    const v1 = (await workflowBundle({ domains: [deploysDomain('v1')] })).code;
    const olders: DeploysWorker[] = [];
    const handles: WorkflowHandle[] = [];
    let current: DeploysWorker | undefined;
    try {
      // Three releases in turn, each current while a run starts on it; their workers drain
      // nothing, and stop once the runs parked.
      for (let i = 1; i <= BUILDS; i++) {
        const code = withChangeMark(v1, `turns ${i}`);
        olders.push(
          await startDeploysWorker(env, connection, withDrains(0), {
            v: 'v1',
            taskQueue,
            code,
            transientRetryWindowMs: 1000,
          }),
        );
        await becomesCurrent(connection, config, taskQueue, buildIdOf(code));
        handles.push(await start(taskQueue));
      }
      await Promise.all(handles.map(waitParked));
      await Promise.all(olders.map((w) => w.stop()));

      // The next release, whose process may run one drain.
      current = await startDeploysWorker(env, connection, withDrains(SLOTS), {
        v: 'v2',
        taskQueue,
        transientRetryWindowMs: 1000,
      });
      const v2 = buildIdOf((await workflowBundle({ domains: [deploysDomain('v2')] })).code);
      await becomesCurrent(connection, config, taskQueue, v2);

      // An operator retries every parked run at once.
      const sentAt = Date.now();
      const signalled = await Promise.all(
        handles.map(async (h) => {
          await h.signal(retryStepSignal, { by: 'test', reason: 'mail API back' });
          const events = (await h.fetchHistory()).events ?? [];
          return Number(
            events.findLast((e) => e.workflowExecutionSignaledEventAttributes)?.eventId,
          );
        }),
      );
      // How long each retry waited for a drain, or undefined: not within the bound.
      const tookMs = await Promise.all(
        handles.map((h, i) =>
          waitFor(() => taken(h, signalled[i]!), {
            timeoutMs: BOUND_MS,
            intervalMs: 250,
            what: `the retry of ${h.workflowId} taken`,
          }).then(
            () => Date.now() - sentAt,
            () => undefined,
          ),
        ),
      );
      const said = tookMs.map((ms, i) => `build ${i + 1}: ${ms === undefined ? 'not' : ms} ms`);
      assert.ok(
        tookMs.every((ms) => ms !== undefined && ms <= BOUND_MS),
        `each retry taken within ${BOUND_MS} ms: ${said.join(', ')}`,
      );
    } finally {
      await current?.stop();
      await Promise.all(olders.map((w) => w.stop()));
      await Promise.all(handles.map((h) => h.terminate('test over').catch(() => undefined)));
    }
  });
});
