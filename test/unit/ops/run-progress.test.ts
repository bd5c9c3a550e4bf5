import { strict as assert } from 'node:assert';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type pg from 'pg';
import { readRunProgress, stallLine, UNCLAIMED_TASK_AFTER_MS } from '../../../src/ops/run-progress';

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
const pinned = {
  workflowExecutionInfo: {
    versioningInfo: {
      behavior: VersioningBehavior.VERSIONING_BEHAVIOR_PINNED,
      deploymentVersion: { deploymentName: 'renewals', buildId: 'b-old' },
    },
  },
};
/** A pool in which build b-old's code is stored, or not. */
const poolStoring = (stored: boolean) =>
  ({ query: async () => ({ rowCount: stored ? 1 : 0, rows: [] }) }) as unknown as pg.Pool;
const storedPool = poolStoring(true);
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
      build: { deployment: 'renewals', buildId: 'b-old', behavior: 'pinned' },
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
    assert.match(stallLine(p)!, /fails on the code of build b-old .*non-deterministic-error/);
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
    assert.match(stallLine(p)!, /no worker of build b-old has taken its workflow task/);
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
      build: { deployment: 'renewals', buildId: 'b-old', behavior: 'auto-upgrade' },
    });
  });

  it('says nobody can run it when its build is neither current nor stored, at once', async () => {
    const p = await readRunProgress(
      client,
      poolStoring(false),
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
    assert.match(stallLine(p)!, /pinned to build b-old, whose code no worker stored/);
  });
});
