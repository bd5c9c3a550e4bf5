import { strict as assert } from 'node:assert';
import { ApplicationFailure } from '@temporalio/common';
import { TerminatedFailure } from '@temporalio/common';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import { businessError, inputOf, scriptedRuntime } from '../../support/emulator/runtime';

type Acts = {
  charge(i: { key: string }): Promise<void>;
  recall(i: { key: string; shipmentId?: string }): Promise<void>;
};

const shipping = defineWorkflow<{ id: string }, Acts>()({
  name: 'childUndo',
  domain: 'child-undo',
  entity: { kind: 'cu', id: (d) => d.id },
  steps: { charge: { activity: 'charge', retry: 'foreign', failures: { Declined: 'declined' } } },
  children: {
    shipment: {
      compensate: {
        name: 'recall',
        activity: 'recall',
        retry: 'foreign',
        input: ({ result }) => ({ shipmentId: (result as { shipmentId?: string })?.shipmentId }),
      },
    },
  },
  async run({ steps, child }) {
    await child('shipment', 'ship', {});
    await steps.charge();
  },
});

const answer = (call: { activity: string }) => {
  if (call.activity === 'claimEntity') return { kind: 'owner', claim: {} };
  if (call.activity === 'charge') throw businessError('Declined');
  return {};
};

describe("a child's undo", () => {
  it('a completed child is undone, from its result, when the parent unwinds', async () => {
    const s = scriptedRuntime(answer, { idleTurns: 0, child: () => ({ shipmentId: 'sh_1' }) });
    const result = await runWorkflow(
      shipping.definition as never,
      inputOf({ id: 'u-1' }),
      s.runtime,
    );
    assert.equal(result.outcome, 'declined');
    const recalls = s.calls.filter((c) => c.activity === 'recall').map((c) => c.input);
    assert.deepEqual(recalls, [{ shipmentId: 'sh_1', key: 'cu:u-1:recall' }]);
  });

  it('a child terminated mid-way may have acted: undone, without a result', async () => {
    const s = scriptedRuntime(answer, {
      idleTurns: 0,
      // Temporal reports it to the parent as a ChildWorkflowFailure caused by this.
      child: () => {
        throw new TerminatedFailure('terminated by an operator');
      },
    });
    const err = await runWorkflow(
      shipping.definition as never,
      inputOf({ id: 'u-2' }),
      s.runtime,
    ).then(
      () => assert.fail('completed'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApplicationFailure, String(err));
    assert.deepEqual(
      s.calls.filter((c) => c.activity === 'recall').map((c) => c.input),
      [{ shipmentId: undefined, key: 'cu:u-2:recall' }],
    );
  });

  it('a child that failed by its own rules is not undone by the parent', async () => {
    const s = scriptedRuntime(answer, {
      idleTurns: 0,
      child: () => {
        throw ApplicationFailure.create({ type: 'NoRoute', message: 'no route' });
      },
    });
    await runWorkflow(shipping.definition as never, inputOf({ id: 'u-3' }), s.runtime).catch(
      () => undefined,
    );
    assert.ok(!s.names().includes('recall'));
  });
});
