import { strict as assert } from 'node:assert';
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow';
import { msToTs } from '@temporalio/common/lib/time';
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
