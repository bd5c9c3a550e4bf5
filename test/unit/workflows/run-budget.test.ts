import { strict as assert } from 'node:assert';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import {
  EVENTS_PER_CALL,
  FORWARD_BUDGET,
  RETRY_BUDGET,
  TEMPORAL_HISTORY_LIMIT,
  forwardRefusal,
  retryRefusal,
} from '../../../src/workflows/run-budget';
import { statusQuery, type SagaStatus } from '../../../src/workflows/saga-status';
import { inputOf, outage, scriptedRuntime } from '../../support/emulator/runtime';

type Acts = {
  pay(i: { key: string }): Promise<void>;
  refund(i: { key: string }): Promise<void>;
  ship(i: { key: string }): Promise<void>;
};

const order = defineWorkflow<{ id: string }, Acts>()({
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
  async run({ steps }) {
    await steps.pay();
    await steps.ship();
  },
});

describe("a run's history budget", () => {
  it('leaves room for the whole unwind between the budgets and the limit', () => {
    assert.ok(FORWARD_BUDGET < RETRY_BUDGET && RETRY_BUDGET < TEMPORAL_HISTORY_LIMIT);
    // At the retry budget, the unwind the run still owes fits under the limit.
    assert.equal(retryRefusal(RETRY_BUDGET - 4 * EVENTS_PER_CALL, 2), undefined);
    assert.match(retryRefusal(RETRY_BUDGET, 2) ?? '', /resolve or cancel/);
    assert.equal(forwardRefusal(100, 3), undefined);
    assert.match(forwardRefusal(FORWARD_BUDGET, 0) ?? '', /would pass 30000/);
  });

  it('a forward call past the budget parks, naming the budget; a resolve goes on', async () => {
    const s = scriptedRuntime(() => ({ kind: 'owner', claim: {} }), {
      idleTurns: 0,
      historyBase: FORWARD_BUDGET,
    });
    const running = runWorkflow(order.definition as never, inputOf({ id: 'b-1' }), s.runtime);
    await s.idle();
    const status = s.query<SagaStatus>(statusQuery.name);
    assert.equal(status.parked?.step, 'pay');
    assert.match(status.parked?.error ?? '', /history holds \d+ events/);
    assert.deepEqual(s.names(), ['claimEntity'], 'nothing was called');
    s.signal('resolveStep', { by: 'ops', step: 'pay' });
    await s.idle();
    s.signal('resolveStep', { by: 'ops', step: 'ship' });
    assert.equal((await running).outcome, 'completed');
  });

  it('past the retry budget an operator retry is refused and said so; cancel still unwinds', async () => {
    const s = scriptedRuntime(
      (call) => {
        if (call.activity === 'pay') throw outage(10_000, 1000);
        return { kind: 'owner', claim: {} };
      },
      { idleTurns: 0, historyBase: RETRY_BUDGET },
    );
    const running = runWorkflow(order.definition as never, inputOf({ id: 'b-2' }), s.runtime);
    await s.idle();
    assert.equal(s.query<SagaStatus>(statusQuery.name).parked?.step, 'pay');
    s.signal('retryStep', { by: 'ops', step: 'pay' });
    await s.idle();
    const status = s.query<SagaStatus>(statusQuery.name);
    assert.match(status.operatorActions?.at(-1)?.refused ?? '', /no room for its unwind/);
    assert.equal(status.parked?.step, 'pay', 'still parked');
    s.signal('cancel', { reason: 'give up', by: 'ops' });
    assert.equal((await running).outcome, 'cancelled');
    assert.ok(s.names().includes('refund'), "pay's outcome was unknown: refunded");
  });
});
