// Finding: with an in-step claim (`claim: { step }`), nothing keeps the body from starting other
// steps before or beside the claiming step (run-step.ts only checks bodyOpen; the phase is
// `running` from the start because claimFirst returns at once). When the claiming step then
// says another run owns the entity, the run ends `duplicate` (entity-run.ts: `if (owner) return
// notOwner(owner)`) although it charged: the docs promise such a run "acts on nothing", and its
// charge is never undone.
import { strict as assert } from 'node:assert';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import { inputOf, scriptedRuntime } from '../../support/emulator/runtime';

type Acts = {
  reserve(i: { key: string }): Promise<{ verdict?: string }>;
  charge(i: { key: string }): Promise<{ chargeId: string }>;
  refund(i: { key: string }): Promise<void>;
  release(i: { key: string }): Promise<void>;
  claimCancelled(i: object): Promise<unknown>;
  settle(i: object): Promise<void>;
};

const owner = { workflowId: 'other-wf', runId: 'r0', fingerprint: 'f'.repeat(64), claimedAt: 'x' };

const wf = defineWorkflow<{ id: string }, Acts>()({
  name: 'besideClaim',
  domain: 'beside',
  entity: { kind: 'bc', id: (d) => d.id },
  claim: {
    step: 'reserve',
    verdict: (r: { verdict?: string }) =>
      r.verdict === 'duplicate' ? { kind: 'duplicate', claim: owner } : undefined,
    cancelled: { activity: 'claimCancelled', retry: 'own', input: () => ({}) },
    settle: { activity: 'settle', input: (_ctx: unknown, settled: string) => ({ settled }) },
  } as never,
  steps: {
    reserve: {
      activity: 'reserve',
      retry: 'own',
      compensate: { name: 'release', activity: 'release', retry: 'own', input: () => ({}) },
    },
    charge: {
      activity: 'charge',
      retry: 'foreign',
      compensate: { name: 'refund', activity: 'refund', retry: 'foreign', input: () => ({}) },
    },
  },
  async run({ steps }) {
    // The reservation and the charge at once (a domain that wants speed).
    await Promise.all([steps.reserve(), steps.charge()]);
  },
});

describe('a step beside the claiming step', () => {
  it('a run the claim calls a duplicate neither charges nor leaves a charge behind', async () => {
    const s = scriptedRuntime(
      (call) => {
        if (call.activity === 'reserve') return { verdict: 'duplicate' };
        if (call.activity === 'charge') return { chargeId: 'ch_dup' };
        return {};
      },
      { idleTurns: 0, attemptMs: (c) => (c.activity === 'reserve' ? 500 : 10) },
    );
    const result = await runWorkflow(wf.definition as never, inputOf({ id: 'b-1' }), s.runtime);
    const names = s.names();
    process.stdout.write(`      outcome ${result.outcome}; activities ${names.join(', ')}\n`);
    assert.equal(result.outcome, 'duplicate');
    const charged = names.includes('charge');
    const refunded = names.includes('refund');
    assert.ok(
      !charged || refunded,
      `the duplicate run charged (charge attempted) and never refunded: ${names.join(', ')}`,
    );
  });
});
