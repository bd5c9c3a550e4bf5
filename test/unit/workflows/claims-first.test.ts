import { strict as assert } from 'node:assert';
import { ApplicationFailure } from '@temporalio/common';
import { RUN_FAILED } from '../../../src/workflows/entity-run';
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
type Body = (ctx: { steps: Record<'reserve' | 'charge', () => Promise<unknown>> }) => Promise<void>;

const owner = { workflowId: 'other-wf', runId: 'r0', fingerprint: 'f'.repeat(64), claimedAt: 'x' };

/** A workflow whose `reserve` claims the entity in its own transaction, with this body. */
const claimingWorkflow = (run: Body) =>
  defineWorkflow<{ id: string }, Acts>()({
    name: 'claimsFirst',
    domain: 'claims-first',
    entity: { kind: 'cf', id: (d) => d.id },
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
    run: run as never,
  });

const runOf = (verdict: string | undefined, run: Body) => {
  const s = scriptedRuntime(
    (call) => (call.activity === 'reserve' ? { verdict } : call.activity === 'charge' ? {} : {}),
    { idleTurns: 0 },
  );
  const wf = claimingWorkflow(run);
  return { s, result: runWorkflow(wf.definition as never, inputOf({ id: 'c-1' }), s.runtime) };
};

describe('claims first: nothing acts before the claim says this run owns the entity', () => {
  it('a step beside the claiming step waits for its verdict, and runs when this run owns it', async () => {
    const { s, result } = runOf(undefined, async ({ steps }) => {
      await Promise.all([steps.charge(), steps.reserve()]);
    });
    assert.equal((await result).outcome, 'completed');
    assert.deepEqual(
      s.names().filter((n) => n === 'reserve' || n === 'charge'),
      ['reserve', 'charge'],
    );
  });

  it('a run that catches NotOwner and goes on still acts on nothing, and ends duplicate', async () => {
    const { s, result } = runOf('duplicate', async ({ steps }) => {
      try {
        await steps.reserve();
      } catch {
        // A catch-all: the body does not know what it caught.
      }
      await steps.charge();
    });
    assert.equal((await result).outcome, 'duplicate');
    assert.deepEqual(
      s.names().filter((n) => n !== 'settle'),
      ['reserve'],
      'neither a charge nor an undo with the entity keys',
    );
  });

  it('a step called before the claiming step is refused, naming both', async () => {
    const { s, result } = runOf(undefined, async ({ steps }) => {
      await steps.charge();
      await steps.reserve();
    });
    const err = await result.then(
      () => assert.fail('the run completed'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApplicationFailure && err.type === RUN_FAILED, String(err));
    assert.match(err.message, /charge was called before reserve, the step that claims/);
    assert.ok(!s.names().includes('charge'), 'charge never ran');
  });
});
