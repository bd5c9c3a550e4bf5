import { strict as assert } from 'node:assert';
import { CancelledFailure } from '@temporalio/common';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import { StepFailure } from '../../../src/workflows/run-errors';
import type { ActivityCall } from '../../../src/workflows/saga-runtime';
import {
  businessFailure,
  deferred,
  inputOf,
  scriptedRuntime,
  turns,
} from '../../support/emulator/runtime';

type Renewal = { subscriptionId: string; amountMinor: number; giftWrap?: boolean };
type Acts = {
  chargeCard(i: { key: string; amountMinor: number }): Promise<{ chargeId: string }>;
  refundCharge(i: { key: string; chargeId?: string; subscriptionId: string }): Promise<void>;
  wrapGift(i: { key: string }): Promise<void>;
  reserveSeat(i: { key: string; seat: string }): Promise<void>;
  freeSeat(i: { key: string; seat: string }): Promise<void>;
  sendReceipt(i: { key: string; chargeId: string }): Promise<void>;
};

const seat = (name: 'a' | 'b') =>
  ({
    activity: 'reserveSeat',
    retry: 'own',
    failures: { SeatTaken: 'seat-taken' },
    compensate: {
      name: `free-${name}`,
      activity: 'freeSeat',
      retry: 'own',
      input: () => ({ seat: name }),
    },
  }) as const;

/** Charge, a conditional wrap, two seats at once, a receipt that reads the charge. */
const renewal = defineWorkflow<Renewal, Acts>()({
  name: 'renewal',
  domain: 'renewals',
  entity: { kind: 'renewal', id: (d) => d.subscriptionId },
  outcomes: ['expired'],
  steps: {
    charge: {
      activity: 'chargeCard',
      retry: 'foreign',
      failures: { CardDeclined: 'declined' },
      compensate: {
        name: 'refund',
        activity: 'refundCharge',
        retry: 'foreign',
        input: ({ data, result }) => ({
          subscriptionId: data.subscriptionId,
          ...(result ? { chargeId: result.chargeId } : {}),
        }),
      },
    },
    wrap: { activity: 'wrapGift', retry: 'own' },
    'seat-a': seat('a'),
    'seat-b': seat('b'),
    receipt: { activity: 'sendReceipt', retry: 'foreign' },
  },
  async run({ data, steps, fail }) {
    const { chargeId } = await steps.charge({ amountMinor: data.amountMinor });
    if (data.giftWrap) await steps.wrap();
    if (data.amountMinor === 1) return fail('expired', 'nothing left to renew');
    await Promise.all([steps['seat-a']({ seat: 'a' }), steps['seat-b']({ seat: 'b' })]);
    await steps.receipt({ chargeId });
    return { chargeId };
  },
});

type Answer = (call: ActivityCall) => Promise<unknown> | undefined;
/** Every activity succeeds unless `over` answers it. */
function script(over: Answer = () => undefined) {
  return scriptedRuntime(async (call) => {
    const given = over(call);
    if (given) return given;
    if (call.activity === 'chargeCard') return { chargeId: 'ch_1' };
    if (call.activity === 'claimEntity') return { kind: 'owner', claim: {} };
    return {};
  });
}
const run = (data: Renewal, s: ReturnType<typeof script>) =>
  runWorkflow(renewal.definition as never, inputOf(data), s.runtime);
const S1 = { subscriptionId: 's-1', amountMinor: 900 };

describe('defineWorkflow: plain code over declared steps (scripted runtime)', () => {
  it('passes a result on, skips a step by `if`, runs steps at once, each with its own key', async () => {
    const s = script();
    const result = await run(S1, s);
    assert.equal(result.outcome, 'completed');
    assert.equal(result.chargeId, 'ch_1');
    assert.deepEqual(s.names(), [
      'claimEntity',
      'chargeCard',
      'reserveSeat',
      'reserveSeat',
      'sendReceipt',
      'settleClaim',
    ]);
    const input = (activity: string) => s.calls.filter((c) => c.activity === activity);
    assert.deepEqual(input('sendReceipt')[0]!.input, {
      chargeId: 'ch_1',
      key: 'renewal:s-1:receipt',
    });
    assert.deepEqual(
      input('reserveSeat').map((c) => c.input),
      [
        { seat: 'a', key: 'renewal:s-1:seat-a' },
        { seat: 'b', key: 'renewal:s-1:seat-b' },
      ],
    );
    const wrapped = script();
    await run({ ...S1, giftWrap: true }, wrapped);
    assert.ok(wrapped.names().includes('wrapGift'), 'the conditional step runs when asked');
  });

  it('a business failure beside a step in flight waits for it, then undoes both seats and the charge', async () => {
    const slowB = deferred<unknown>();
    const s = script((c) => {
      const seatOf = (c.input as { seat?: string }).seat;
      if (c.activity === 'reserveSeat' && seatOf === 'a')
        return Promise.reject(businessFailure('reserveSeat', 'SeatTaken'));
      if (c.activity === 'reserveSeat' && seatOf === 'b') return slowB.promise;
      return undefined;
    });
    const running = run(S1, s);
    // seat-a failed at once; the run must not unwind while seat-b's outcome is unknown.
    await turns();
    assert.ok(!s.names().includes('freeSeat'), 'nothing undone while seat-b is in flight');
    slowB.resolve({});
    const result = await running;
    assert.equal(result.outcome, 'seat-taken');
    const undone = s.calls.filter((c) => ['freeSeat', 'refundCharge'].includes(c.activity));
    assert.deepEqual(
      undone.map((c) => c.input),
      [
        { seat: 'b', key: 'renewal:s-1:free-b' },
        { subscriptionId: 's-1', chargeId: 'ch_1', key: 'renewal:s-1:refund' },
      ],
      'seat-a did nothing (its business failure): only seat-b and the charge are undone, last first',
    );
    assert.deepEqual(s.calls.at(-1)!.input, {
      domain: 'renewals',
      entityId: 's-1',
      workflowId: 'wf-1',
      runId: 'run-1',
      startedAt: '2026-11-27T12:00:00.000Z',
      fingerprint: 'f'.repeat(64),
      settled: 'seat-taken',
    });
  });

  it("Temporal's cancellation of a step in flight undoes it (outcome unknown) and closes the run as Canceled", async () => {
    const charging = deferred<unknown>();
    const s = script((c) => (c.activity === 'chargeCard' ? charging.promise : undefined));
    const running = run(S1, s);
    await turns();
    s.cancel();
    charging.reject(new Error('worker lost mid-call'));
    await assert.rejects(running, CancelledFailure);
    const refund = s.calls.find((c) => c.activity === 'refundCharge');
    assert.deepEqual(
      refund?.input,
      { subscriptionId: 's-1', key: 'renewal:s-1:refund' },
      'refunded by subscription: the charge ID is unknown',
    );
    assert.equal((s.calls.at(-1)!.input as { settled: string }).settled, 'cancelled');
    assert.equal(s.steps.at(-1), 'cancelled');
  });

  it('a body that ends the run with a declared outcome unwinds and settles with it', async () => {
    const s = script();
    const result = await run({ ...S1, amountMinor: 1 }, s);
    assert.equal(result.outcome, 'expired');
    assert.deepEqual(s.names().slice(-2), ['refundCharge', 'settleClaim']);
  });

  it("a body may catch a step's business failure and go on", async () => {
    const tolerant = defineWorkflow<Renewal, Acts>()({
      name: 'tolerant',
      domain: 'renewals',
      entity: { kind: 'renewal', id: (d) => d.subscriptionId },
      steps: {
        charge: {
          activity: 'chargeCard',
          retry: 'foreign',
          failures: { CardDeclined: 'declined' },
        },
        receipt: { activity: 'sendReceipt', retry: 'foreign' },
      },
      async run({ steps }) {
        try {
          await steps.charge({ amountMinor: 5 });
        } catch (err) {
          if (!(err instanceof StepFailure) || err.outcome !== 'declined') throw err;
          await steps.receipt({ chargeId: 'none' });
        }
      },
    });
    const s = script((c) =>
      c.activity === 'chargeCard'
        ? Promise.reject(businessFailure('chargeCard', 'CardDeclined'))
        : undefined,
    );
    const result = await runWorkflow(tolerant.definition as never, inputOf(S1), s.runtime);
    assert.equal(result.outcome, 'completed');
    assert.ok(s.names().includes('sendReceipt'));
  });
});
