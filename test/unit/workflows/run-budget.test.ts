import { strict as assert } from 'node:assert';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import {
  callReserve,
  createBudget,
  ENDING_RESERVE,
  FORWARD_BUDGET,
  LAST_LINE,
  MAX_PAYLOAD_BYTES,
  payloadBytes,
  RETRY_BUDGET,
  TEMPORAL_LIMITS,
} from '../../../src/workflows/run-budget';
import { statusQuery, type SagaStatus } from '../../../src/workflows/saga-status';
import { inputOf, outage, scriptedRuntime } from '../../support/emulator/runtime';

type Acts = {
  pay(i: { key: string; note?: string }): Promise<void>;
  refund(i: { key: string }): Promise<void>;
  ship(i: { key: string }): Promise<void>;
};

const order = defineWorkflow<{ id: string; note?: string }, Acts>()({
  name: 'budgeted',
  domain: 'budgets',
  entity: { kind: 'budget', id: (d) => d.id },
  steps: {
    pay: {
      activity: 'pay',
      retry: 'foreign',
      compensate: { name: 'refund', activity: 'refund', retry: 'foreign', input: () => ({}) },
    },
    ship: { activity: 'ship', retry: 'foreign' },
  },
  async run({ steps, data }) {
    await steps.pay(data.note === undefined ? {} : { note: data.note });
    await steps.ship();
  },
});

const owner = () => ({ kind: 'owner', claim: {} });

describe("a run's history budget: events and bytes", () => {
  it('orders its lines under Temporal’s limits, with a margin for what it cannot refuse', () => {
    // Every line is compared with used + reserved (the unwind included); the margin above the
    // last line takes what arrives unasked while the run unwinds (signals, workflow tasks).
    for (const unit of ['events', 'bytes'] as const) {
      assert.ok(FORWARD_BUDGET[unit] < RETRY_BUDGET[unit], unit);
      assert.ok(RETRY_BUDGET[unit] < LAST_LINE[unit], unit);
      assert.ok(TEMPORAL_LIMITS[unit] - LAST_LINE[unit] >= 10 * ENDING_RESERVE[unit], unit);
    }
    assert.ok(MAX_PAYLOAD_BYTES < TEMPORAL_LIMITS.payloadBytes);
  });

  it('counts Temporal’s events and bytes, and what the run may still write', () => {
    let reading = { historyLength: 100, historySize: 10_000 };
    const budget = createBudget(
      () => reading,
      () => ({ events: 0, bytes: 0 }),
    );
    assert.equal(budget.forwardRefusal(callReserve(100)), undefined);
    reading = { historyLength: FORWARD_BUDGET.events, historySize: 10_000 };
    assert.match(budget.forwardRefusal(callReserve(100)) ?? '', /^history-budget: .* events/);
    reading = { historyLength: 100, historySize: FORWARD_BUDGET.bytes };
    assert.match(budget.forwardRefusal(callReserve(100)) ?? '', /^history-budget: .* MiB/);
    assert.equal(budget.lastLine(), undefined);
    reading = { historyLength: LAST_LINE.events + 1, historySize: 0 };
    assert.match(budget.lastLine() ?? '', /^history-budget: .*last line/);
  });

  it('measures payloads as JSON bytes, non-ASCII and bigints included', () => {
    assert.equal(payloadBytes(undefined), 0);
    assert.equal(payloadBytes({ a: 'é' }), Buffer.byteLength(JSON.stringify({ a: 'é' })));
    assert.equal(payloadBytes({ a: '🧾' }), Buffer.byteLength(JSON.stringify({ a: '🧾' })));
    assert.equal(payloadBytes({ n: 2n ** 63n - 1n }), '{"n":"9223372036854775807"}'.length);
  });

  it('a forward call past the budget parks, naming the budget; a resolve goes on', async () => {
    const s = scriptedRuntime(owner, { idleTurns: 0, historyBase: FORWARD_BUDGET.events });
    const running = runWorkflow(order.definition as never, inputOf({ id: 'b-1' }), s.runtime);
    await s.idle();
    const status = s.query<SagaStatus>(statusQuery.name);
    assert.equal(status.parked?.step, 'pay');
    assert.match(status.parked?.error ?? '', /^history-budget: .*forward budget/);
    assert.deepEqual(s.names(), ['claimEntity'], 'nothing was called');
    s.signal('resolveStep', { by: 'ops', step: 'pay' });
    await s.idle();
    s.signal('resolveStep', { by: 'ops', step: 'ship' });
    assert.equal((await running).outcome, 'completed');
  });

  it('a call the budget refused is never undone: it never ran', async () => {
    const s = scriptedRuntime(owner, { idleTurns: 0, historyBase: FORWARD_BUDGET.events });
    const running = runWorkflow(order.definition as never, inputOf({ id: 'b-2' }), s.runtime);
    await s.idle();
    assert.equal(s.query<SagaStatus>(statusQuery.name).parked?.step, 'pay');
    s.signal('cancel', { reason: 'give up', by: 'ops' });
    assert.equal((await running).outcome, 'cancelled');
    assert.deepEqual(s.names(), ['claimEntity', 'settleClaim'], 'no refund of what never ran');
  });

  it('past the retry budget a retry is refused (an update writes nothing); cancel unwinds', async () => {
    const s = scriptedRuntime(
      (call) => {
        if (call.activity === 'pay') throw outage(10_000, 1000);
        return owner();
      },
      { idleTurns: 0, historyBase: FORWARD_BUDGET.events - 2_000 },
    );
    const running = runWorkflow(order.definition as never, inputOf({ id: 'b-3' }), s.runtime);
    await s.idle();
    assert.equal(s.query<SagaStatus>(statusQuery.name).parked?.step, 'pay');
    // What the run cannot refuse (signals nobody waits for) fills its history.
    while (s.history() < RETRY_BUDGET.events) {
      for (let i = 0; i < 1000; i++) s.signal('noise', {});
      await s.idle();
    }
    const before = s.history();
    await assert.rejects(
      s.update('operatorRetry', { by: 'ops', step: 'pay' }),
      /pay: history-budget: another retry could leave no room/,
    );
    await s.idle();
    assert.equal(s.history(), before, 'a rejected update writes no event');
    s.signal('retryStep', { by: 'ops', step: 'pay' });
    await s.idle();
    const status = s.query<SagaStatus>(statusQuery.name);
    assert.match(status.operatorActions?.at(-1)?.refused ?? '', /no room for the unwind/);
    assert.equal(status.parked?.step, 'pay', 'still parked');
    s.signal('cancel', { reason: 'give up', by: 'ops' });
    assert.equal((await running).outcome, 'cancelled');
    assert.ok(s.names().includes('refund'), "pay's outcome was unknown: refunded");
  });

  it('a call whose input is over the payload limit never starts; the run fails saying so', async () => {
    const s = scriptedRuntime(owner, { idleTurns: 0 });
    const note = 'x'.repeat(MAX_PAYLOAD_BYTES);
    const err = await runWorkflow(
      order.definition as never,
      inputOf({ id: 'b-4', note }),
      s.runtime,
    ).then(
      () => assert.fail('the run completed'),
      (e: unknown) => e as Error,
    );
    assert.match(err.message, /the input of pay is \d+ KiB of JSON, over the 1024 KiB/);
    assert.ok(!s.names().includes('pay'));
  });
});
