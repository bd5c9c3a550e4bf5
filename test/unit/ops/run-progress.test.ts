import { strict as assert } from 'node:assert';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { gzipSync } from 'node:zlib';
import type pg from 'pg';
import { readRunProgress, stallLine, UNCLAIMED_TASK_AFTER_MS } from '../../../src/ops/run-progress';
import { buildIdOf, WORKFLOW_SDK_VERSION } from '../../../src/db/workflow-build-store';

const NOW = Date.parse('2026-11-27T12:00:00Z');
const ts = (ms: number) => msToTs(ms);
const { PendingWorkflowTaskState, VersioningBehavior, WorkflowTaskFailedCause } =
  temporal.api.enums.v1;

function described(
  raw: temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse,
  status = 'RUNNING',
): WorkflowExecutionDescription {
  return { workflowId: 'wf', runId: 'run', status: { name: status }, raw } as never;
}
/** The build the run is pinned to: its code's hash, as in production. */
const OLD_CODE = 'module.exports = "old build";';
const B_OLD = buildIdOf(OLD_CODE);
const pinned = {
  workflowExecutionInfo: {
    versioningInfo: {
      behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED,
      deploymentVersion: { deploymentName: 'renewals', buildId: B_OLD },
    },
  },
};
/** A pool in which the old build's row holds `code`, or (null) no row. */
const poolStoring = (code: string | null) =>
  ({
    query: async () =>
      code === null
        ? { rowCount: 0, rows: [] }
        : {
            rowCount: 1,
            rows: [{ code_gzip: gzipSync(code), sdk_version: WORKFLOW_SDK_VERSION }],
          },
  }) as unknown as pg.Pool;
const storedPool = poolStoring(OLD_CODE);
/** A client whose deployment's current build is b-new and whose run failed one workflow task. */
const client = {
  options: { namespace: 'default' },
  workflowService: {
    describeWorkerDeployment: async () => ({
      workerDeploymentInfo: { routingConfig: { currentDeploymentVersion: { buildId: 'b-new' } } },
    }),
    getWorkflowExecutionHistoryReverse: async () => ({
      history: {
        events: [
          { eventId: 9, workflowTaskScheduledEventAttributes: {} },
          {
            eventId: 8,
            eventTime: ts(NOW - 120_000),
            workflowTaskFailedEventAttributes: {
              cause: WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR,
              failure: { message: '[TMPRL1100] Nondeterminism error: Activity type mismatch' },
            },
          },
        ],
      },
    }),
  },
} as unknown as Client;

describe('a run that cannot go on on its code', () => {
  it('names the build it is pinned to, and nothing else while its tasks run', async () => {
    const p = await readRunProgress(
      client,
      storedPool,
      described({
        ...pinned,
        pendingWorkflowTask: {
          state: PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED,
          scheduledTime: ts(NOW - 1000),
          attempt: 1,
        },
      }),
      NOW,
    );
    assert.deepEqual(p, {
      build: { deployment: 'renewals', buildId: B_OLD, behavior: 'pinned' },
    });
    assert.equal(stallLine(p), undefined);
  });

  it('says its workflow task fails, with Temporal cause and message, from the second attempt', async () => {
    const p = await readRunProgress(
      client,
      storedPool,
      described({
        ...pinned,
        pendingWorkflowTask: {
          state: PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED,
          scheduledTime: ts(NOW - 5000),
          attempt: 4,
        },
      }),
      NOW,
    );
    assert.deepEqual(p.stalled, {
      kind: 'task-failing',
      attempt: 4,
      cause: 'non-deterministic-error',
      message: '[TMPRL1100] Nondeterminism error: Activity type mismatch',
      since: new Date(NOW - 120_000).toISOString(),
    });
    assert.match(
      stallLine(p)!,
      new RegExp(`fails on the code of build ${B_OLD} .*non-deterministic-error`),
    );
  });

  it('says no worker of its build takes its task once it has waited a minute', async () => {
    const waiting = (ms: number) =>
      readRunProgress(
        client,
        storedPool,
        described({
          ...pinned,
          pendingWorkflowTask: {
            state: PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED,
            scheduledTime: ts(NOW - ms),
            attempt: 1,
          },
        }),
        NOW,
      );
    assert.equal((await waiting(UNCLAIMED_TASK_AFTER_MS - 1000)).stalled, undefined);
    const p = await waiting(UNCLAIMED_TASK_AFTER_MS + 1000);
    assert.equal(p.stalled?.kind, 'no-worker');
    assert.match(
      stallLine(p)!,
      new RegExp(`no worker of build ${B_OLD} has taken its workflow task`),
    );
  });

  it('says nothing of a closed run, and an operator override wins over the behavior', async () => {
    const p = await readRunProgress(
      client,
      storedPool,
      described(
        {
          workflowExecutionInfo: {
            versioningInfo: {
              ...pinned.workflowExecutionInfo.versioningInfo,
              versioningOverride: { autoUpgrade: true },
            },
          },
          pendingWorkflowTask: { attempt: 9 },
        },
        'COMPLETED',
      ),
      NOW,
    );
    assert.deepEqual(p, {
      build: { deployment: 'renewals', buildId: B_OLD, behavior: 'auto-upgrade' },
    });
  });

  it('says nobody can run it when its build is neither current nor stored, at once', async () => {
    const p = await readRunProgress(
      client,
      poolStoring(null),
      described({
        ...pinned,
        pendingWorkflowTask: {
          state: PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED,
          scheduledTime: ts(NOW - 100),
          attempt: 1,
        },
      }),
      NOW,
    );
    assert.equal(p.stalled?.kind, 'build-unserved');
    assert.match(
      stallLine(p)!,
      new RegExp(`pinned to build ${B_OLD}, whose code no worker stored`),
    );
  });

  it('says why, when its build is not current and its stored code is refused', async () => {
    const p = await readRunProgress(
      client,
      poolStoring(`${OLD_CODE}\n// changed in the database`),
      described({ ...pinned, pendingWorkflowTask: { attempt: 1 } }),
      NOW,
    );
    assert.equal(p.stalled?.kind, 'build-refused');
    assert.match(
      stallLine(p)!,
      new RegExp(
        `pinned to build ${B_OLD}, whose stored code is refused \\(its stored code hashes to`,
      ),
    );
  });

  it('says it for a run on the current build too: no drain runs refused code', async () => {
    const onCurrent = {
      ...client,
      workflowService: {
        ...client.workflowService,
        describeWorkerDeployment: async () => ({
          workerDeploymentInfo: { routingConfig: { currentDeploymentVersion: { buildId: B_OLD } } },
        }),
      },
    } as unknown as Client;
    const p = await readRunProgress(
      onCurrent,
      poolStoring(`${OLD_CODE}\n// planted before the build ran`),
      described({ ...pinned, pendingWorkflowTask: { attempt: 1 } }),
      NOW,
    );
    assert.equal(p.stalled?.kind, 'build-refused');
    assert.match(
      stallLine(p)!,
      new RegExp(`pinned to build ${B_OLD}, whose stored code is refused`),
    );
    // Its code not stored yet (its workers store it as they start): nothing to say.
    const unstored = await readRunProgress(onCurrent, poolStoring(null), described(pinned), NOW);
    assert.equal(unstored.stalled, undefined);
  });
});
