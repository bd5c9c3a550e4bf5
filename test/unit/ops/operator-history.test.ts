import { strict as assert } from 'node:assert';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import { msToTs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import {
  operatorActionLines,
  operatorActionsOfHistory,
  operatorActionsOfStatus,
} from '../../../src/ops/operator-history';

const client = { options: { loadedDataConverter: loadDataConverter() } } as unknown as Client;
const payloads = (value: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(value)] });

describe('operator actions for orders show', () => {
  it('reads every operator signal of a history, payload or not', async () => {
    const actions = await operatorActionsOfHistory(client, [
      { workflowExecutionSignaledEventAttributes: { signalName: 'somethingElse' } },
      {
        eventTime: msToTs(1_795_000_000_000),
        workflowExecutionSignaledEventAttributes: {
          signalName: 'retryStep',
          identity: '123@host',
          input: payloads({ by: 'alice', reason: 'PSP back', at: '2026-11-23T12:00:00.000Z' }),
        },
      },
      {
        eventTime: msToTs(1_795_000_060_000),
        workflowExecutionSignaledEventAttributes: {
          signalName: 'resolveStep',
          identity: '456@old',
        },
      },
      {
        workflowExecutionSignaledEventAttributes: {
          signalName: 'cancelOrder',
          input: payloads({ reason: 'customer called' }),
          identity: 'bridge',
        },
      },
    ]);
    assert.deepEqual(
      actions.map((a) => [a.action, a.by, a.reason, a.at]),
      [
        ['retry', 'alice', 'PSP back', '2026-11-23T12:00:00.000Z'],
        ['resolve', '456@old', undefined, new Date(1_795_000_060_000).toISOString()],
        ['cancel', 'bridge', 'customer called', ''],
      ],
    );
  });

  it('reads a Temporal reset from the workflow task it failed, with the reason and runs', async () => {
    const actions = await operatorActionsOfHistory(client, [
      {
        eventTime: msToTs(1_795_000_120_000),
        workflowTaskFailedEventAttributes: {
          cause:
            temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW,
          identity: 'history-service',
          failure: { message: 'ops: re-run after the fix' },
          baseRunId: 'run-a',
          newRunId: 'run-b',
        },
      },
      {
        // A workflow task that failed for another reason is not an operator action.
        workflowTaskFailedEventAttributes: {
          cause:
            temporal.api.enums.v1.WorkflowTaskFailedCause
              .WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR,
        },
      },
    ]);
    assert.deepEqual(
      actions.map((a) => [a.action, a.by, a.reason, a.at]),
      [
        [
          'reset',
          'history-service',
          'ops: re-run after the fix (run run-b from run-a)',
          new Date(1_795_000_120_000).toISOString(),
        ],
      ],
    );
  });

  it('says which step and key a retry repeated', () => {
    const recorded = operatorActionsOfStatus({
      operatorActions: [
        {
          action: 'retry',
          by: 'bob',
          at: '2026-11-23T12:00:00.000Z',
          step: 'charge',
          key: 'order:o-1:charge',
        },
      ],
    });
    assert.deepEqual(operatorActionLines(recorded!), [
      [
        'operator action',
        '2026-11-23T12:00:00.000Z retry of charge (key order:o-1:charge; its effect runs again under that key) by bob',
      ],
    ]);
  });

  it("prefers the workflow's own record and prints one line per action", () => {
    assert.equal(operatorActionsOfStatus({ step: 'charging' }), undefined);
    const recorded = operatorActionsOfStatus({
      operatorActions: [{ action: 'retry', by: 'bob', at: '2026-11-23T12:00:00.000Z' }],
    });
    assert.equal(recorded?.[0]?.source, 'status');
    assert.deepEqual(operatorActionLines(recorded!), [
      ['operator action', '2026-11-23T12:00:00.000Z retry by bob'],
    ]);
    assert.deepEqual(operatorActionLines({ error: 'x' }), [['operator actions', 'x']]);
  });
});
