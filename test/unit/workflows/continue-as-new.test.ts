import { strict as assert } from 'node:assert';
import {
  ActivityFailure,
  ApplicationFailure,
  CancelledFailure,
  RetryState,
} from '@temporalio/common';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import type { RunCarry } from '../../../src/workflows/run-carry';
import type { EventWorkflowInput } from '../../../src/events/workflow-input';
import { ContinuedAsNew, inputOf, scriptedRuntime } from './scripted-runtime';

type Acts = {
  reserve(i: { key: string }): Promise<{ reservationId: string }>;
  release(i: { key: string; reservationId?: string }): Promise<void>;
  charge(i: { key: string; reservationId: string }): Promise<void>;
  ship(i: { key: string }): Promise<void>;
};

const shipment = defineWorkflow<{ id: string }, Acts>()({
  name: 'shipment',
  domain: 'shipments',
  entity: { kind: 'shipment', id: (d) => d.id },
  steps: {
    reserve: {
      activity: 'reserve',
      retry: 'own',
      compensate: {
        name: 'release',
        activity: 'release',
        retry: 'own',
        input: ({ result }) => (result ? { reservationId: result.reservationId } : {}),
      },
    },
    charge: { activity: 'charge', retry: 'foreign' },
    ship: { activity: 'ship', retry: 'foreign' },
  },
  async run({ steps, sleep }) {
    const { reservationId } = await steps.reserve();
    await sleep('cool-off', '1 minute');
    await steps.charge({ reservationId });
    await steps.ship();
  },
});

/** The provider down: a transient failure carrying the worker's window and interval. */
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
        { transient: true, windowMs: 3_600_000, intervalMs: 30_000, endpoint: 'POST /c', key: 'k' },
      ],
    }),
  );

const answers = (chargeFails: boolean) => async (call: { activity: string }) => {
  if (call.activity === 'claimEntity') return { kind: 'owner', claim: {} };
  if (call.activity === 'reserve') return { reservationId: 'r-1' };
  if (call.activity === 'charge' && chargeFails) throw providerDown();
  return {};
};

/** Runs the first run of the chain until it continues as new; returns the next run's input. */
async function firstRun() {
  // Temporal suggests continuing as new once the charge has been tried (three calls made).
  const first = scriptedRuntime(answers(true), { suggestAfterCalls: 3 });
  const err = await runWorkflow(
    shipment.definition as never,
    inputOf({ id: 's-1' }),
    first.runtime,
  ).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ContinuedAsNew, `the run continued as new: ${String(err)}`);
  return { first, next: err.input as EventWorkflowInput<{ id: string }> & { resume: RunCarry } };
}

describe('a run continues as new while a step waits, and the next one goes on where it was', () => {
  it('carries the wait, the journal and the stack: nothing runs twice, the episode keeps its start', async () => {
    const { first, next } = await firstRun();
    assert.deepEqual(first.names(), ['claimEntity', 'reserve', 'charge']);
    assert.equal(next.resume.waiting?.step, 'charge');
    assert.equal(next.resume.claimed, true);
    assert.deepEqual(
      next.resume.stack.map((e) => [e.name, e.input]),
      [['release', { reservationId: 'r-1', key: 'shipment:s-1:release' }]],
    );
    const second = scriptedRuntime(answers(false));
    const result = await runWorkflow(shipment.definition as never, next, second.runtime);
    assert.equal(result.outcome, 'completed');
    // No second claim, reserve or sleep: only the waiting charge, then the rest.
    assert.deepEqual(second.names(), ['charge', 'ship', 'settleClaim']);
    assert.deepEqual(
      (second.calls[0]!.input as { reservationId: string }).reservationId,
      'r-1',
      "the earlier step's result came through the journal",
    );
    assert.equal(next.resume.runs, 2);
  });

  it('a cancel in the next run undoes what the first run did, with its result', async () => {
    const { next } = await firstRun();
    const second = scriptedRuntime(answers(true));
    const running = runWorkflow(shipment.definition as never, next, second.runtime);
    second.cancel();
    await assert.rejects(running, CancelledFailure);
    const release = second.calls.find((c) => c.activity === 'release');
    assert.deepEqual(release?.input, { reservationId: 'r-1', key: 'shipment:s-1:release' });
  });
});
