import { strict as assert } from 'node:assert';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import { statusQuery, type SagaStatus } from '../../../src/workflows/saga-status';
import { inputOf, scriptedRuntime } from '../../support/emulator/runtime';

type Acts = { charge(i: { key: string }): Promise<void> };

const renewal = defineWorkflow<{ id: string }, Acts>()({
  name: 'renewal',
  domain: 'renewals',
  entity: { kind: 'renewal', id: (d) => d.id },
  steps: { charge: { activity: 'charge', retry: 'foreign' } },
  async run({ steps }) {
    await steps.charge();
  },
});

/** The provider down: transient, with a one-minute window and 30-second rounds. */
const providerDown = () =>
  new ActivityFailure(
    'charge failed',
    'charge',
    '1',
    RetryState.MAXIMUM_ATTEMPTS_REACHED,
    undefined,
    ApplicationFailure.create({
      type: 'ProviderUnavailableError',
      message: 'answered 503',
      details: [
        { transient: true, windowMs: 60_000, intervalMs: 30_000, endpoint: 'POST /c', key: 'k' },
      ],
    }),
  );

describe('a waiting step whose window is spent', () => {
  it('parks: its status says parked, no longer waiting', async () => {
    const scripted = scriptedRuntime(async (call) => {
      if (call.activity === 'claimEntity') return { kind: 'owner', claim: {} };
      if (call.activity === 'charge') throw providerDown();
      return undefined; // settling the claim once the run is cancelled
    });
    const running = runWorkflow(
      renewal.definition as never,
      inputOf({ id: 'r-1' }),
      scripted.runtime,
    );
    await scripted.idle();
    const status = scripted.query<SagaStatus>(statusQuery.name);
    assert.equal(status.step, 'needs_attention');
    assert.equal(status.parked?.step, 'charge');
    assert.equal(status.waiting, undefined, 'a parked step is not also waiting');
    scripted.cancel();
    await assert.rejects(running);
  });
});
