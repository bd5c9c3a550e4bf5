// Finding: a step an operator resolved with `--result` gives the body that result, but its undo
// is never rebuilt from it (run-step.ts: `if (!resolved && ...)`), so a result-dependent undo
// (docs/api.md's own `refund-backup`: `input: ({ result }) => ({ chargeId: result?.chargeId })`)
// runs with `chargeId: undefined` when the run later unwinds.
import { strict as assert } from 'node:assert';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import { statusQuery, type SagaStatus } from '../../../src/workflows/saga-status';
import { businessError, inputOf, permanent, scriptedRuntime } from '../../support/emulator/runtime';

type Acts = {
  charge(i: { key: string }): Promise<{ chargeId: string }>;
  refund(i: { key: string; chargeId?: string }): Promise<void>;
  ship(i: { key: string; chargeId: string }): Promise<void>;
};

const wf = defineWorkflow<{ id: string }, Acts>()({
  name: 'resolvedUndo',
  domain: 'resolved-undo',
  entity: { kind: 'ru', id: (d) => d.id },
  steps: {
    charge: {
      activity: 'charge',
      retry: 'foreign',
      compensate: {
        name: 'refund',
        activity: 'refund',
        retry: 'foreign',
        input: ({ result }) => ({
          chargeId: (result as { chargeId?: string } | undefined)?.chargeId,
        }),
      },
    },
    ship: { activity: 'ship', retry: 'foreign', failures: { NoStock: 'no-stock' } },
  },
  async run({ steps }) {
    const { chargeId } = (await steps.charge()) as { chargeId: string };
    await steps.ship({ chargeId });
  },
});

describe('undo of a resolved step', () => {
  it('refunds the charge the operator confirmed (chargeId from --result)', async () => {
    const refunds: unknown[] = [];
    const shipped: unknown[] = [];
    const s = scriptedRuntime(
      (call) => {
        if (call.activity === 'claimEntity') return { kind: 'owner', claim: {} };
        if (call.activity === 'charge') throw permanent('answered 500 with an unreadable body');
        if (call.activity === 'ship') {
          shipped.push(call.input);
          throw businessError('NoStock');
        }
        if (call.activity === 'refund') refunds.push(call.input);
        return {};
      },
      { idleTurns: 0 },
    );
    const running = runWorkflow(wf.definition as never, inputOf({ id: 'r-1' }), s.runtime);
    await s.idle();
    assert.equal(s.query<SagaStatus>(statusQuery.name).parked?.step, 'charge');
    // The operator checked the provider's dashboard: the charge exists, ch_1.
    s.signal('resolveStep', { by: 'ops', step: 'charge', result: { chargeId: 'ch_1' } });
    const result = await running;
    assert.equal(result.outcome, 'no-stock');
    assert.deepEqual(
      (shipped[0] as { chargeId: string }).chargeId,
      'ch_1',
      'the body used the resolved result',
    );
    assert.equal(refunds.length, 1, 'one refund');
    assert.equal(
      (refunds[0] as { chargeId?: string }).chargeId,
      'ch_1',
      `the refund names no charge: ${JSON.stringify(refunds[0])}`,
    );
  });
});
