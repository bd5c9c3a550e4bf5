import { strict as assert } from 'node:assert';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import { inputOf, outage, scriptedRuntime } from '../../support/emulator/runtime';

type Acts = {
  pay(i: { key: string }): Promise<void>;
  refund(i: { key: string }): Promise<void>;
};

const wf = defineWorkflow<{ id: string }, Acts>()({
  name: 'settleOwner',
  domain: 'settle-owner',
  entity: { kind: 'so', id: (d) => d.id },
  steps: {
    pay: {
      activity: 'pay',
      retry: 'foreign',
      compensate: { name: 'refund', activity: 'refund', retry: 'foreign', input: () => ({}) },
    },
  },
  async run({ steps }) {
    await steps.pay();
  },
});

describe("a not-owner settling a closed owner's claim", () => {
  it('waits out our database failing over like any call, then settles the claim unwound', async () => {
    // The owner is this workflow ID's earlier run, closed and forgotten: nobody to signal, so
    // this run (started cancelled) compensates on its behalf and settles the owner's claim.
    const owner = { workflowId: 'wf-1', runId: 'r0', fingerprint: 'f'.repeat(64), claimedAt: 'x' };
    let settles = 0;
    const settled: string[] = [];
    const s = scriptedRuntime(
      (call) => {
        if (call.activity === 'claimEntity') return { kind: 'duplicate', claim: owner };
        if (call.activity === 'settleClaim') {
          // Down for twelve attempts: longer than a local activity's own five.
          if (++settles <= 12) throw outage(600_000, 5_000);
          settled.push((call.input as { settled: string }).settled);
        }
        return {};
      },
      { idleTurns: 0 },
    );
    const input = { ...inputOf({ id: 's-1' }), cancel: { reason: 'cancel a closed order' } };
    const result = await runWorkflow(wf.definition as never, input as never, s.runtime);
    assert.equal(result.outcome, 'duplicate');
    assert.deepEqual(settled, ['unwound'], `settlements: ${settles} attempts`);
    assert.ok(s.names().includes('refund'), 'compensated on the owner’s behalf');
  });
});
