// Finding (review of d482618): run-budget.ts bounded only steps and operator retries. Sleeps,
// waits, children and every signal the run receives (a refused retry included) added history
// with no check, so a run could pass Temporal's 51,200-event limit, where the server terminates
// it: no unwind, claim unsettled. Each case now reaches the budget and parks (`history-budget`)
// or ends, and its unwind completes under the limit.
import { strict as assert } from 'node:assert';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import {
  FORWARD_BUDGET,
  RETRY_BUDGET,
  TEMPORAL_HISTORY_LIMIT,
} from '../../../src/workflows/run-budget';
import { statusQuery, type SagaStatus } from '../../../src/workflows/saga-status';
import { inputOf, outage, scriptedRuntime, type Closed } from '../../support/emulator/runtime';

type Acts = {
  pay(i: { key: string }): Promise<void>;
  refund(i: { key: string }): Promise<void>;
  check(i: { key: string }): Promise<{ settled: boolean }>;
};

const payDecl = {
  activity: 'pay',
  retry: 'foreign',
  compensate: { name: 'refund', activity: 'refund', retry: 'foreign', input: () => ({}) },
} as const;

/** Pays, then polls with a durable sleep until a payout settles (a common pattern). */
const polling = defineWorkflow<{ id: string; polls: number }, Acts>()({
  name: 'polling',
  domain: 'polling',
  entity: { kind: 'poll', id: (d) => d.id },
  steps: { pay: payDecl },
  async run({ steps, sleep, data }) {
    await steps.pay();
    for (let i = 0; i < data.polls; i++) await sleep('poll', '1 minute');
  },
});

/** Pays, then starts one child per item. */
const fanout = defineWorkflow<{ id: string; kids: number }, Acts>()({
  name: 'fanout',
  domain: 'fanout',
  entity: { kind: 'fan', id: (d) => d.id },
  steps: { pay: payDecl },
  async run({ steps, child, data }) {
    await steps.pay();
    for (let i = 0; i < data.kids; i++) await child(`kid-${i}`, 'kid', {});
  },
});

const ok = (call: { activity: string }) =>
  call.activity === 'claimEntity' ? { kind: 'owner', claim: {} } : {};

describe('history the budget does not see', () => {
  it('a loop of sleeps parks at the forward budget, and its unwind fits under the limit', async function () {
    this.timeout(120_000);
    // The pay starts under the forward budget; the polls that follow are never counted.
    const s = scriptedRuntime(ok, { idleTurns: 0, historyBase: 29_000 });
    const running = runWorkflow(
      polling.definition as never,
      inputOf({ id: 'p-1', polls: 5000 }),
      s.runtime,
    );
    await s.idle();
    const parked = s.query<SagaStatus>(statusQuery.name).parked;
    assert.match(parked?.error ?? 'not parked', /^history-budget: /);
    assert.ok(
      s.history() <= FORWARD_BUDGET.events,
      `history reached ${s.history()} events (> ${FORWARD_BUDGET.events}) before the loop parked`,
    );
    // An operator gives up: the pay is refunded and the run closes under Temporal's limit.
    s.signal('cancel', { reason: 'end', by: 'test' });
    const result = await running;
    assert.equal(result.outcome, 'cancelled');
    assert.ok(s.names().includes('refund'), 'the pay was refunded');
    assert.ok(
      s.history() <= TEMPORAL_HISTORY_LIMIT,
      `history reached ${s.history()} events (> ${TEMPORAL_HISTORY_LIMIT}): Temporal terminates the run mid-loop, the pay is never refunded and the claim never settled`,
    );
  });

  it('children park at the forward budget, as a step does', async function () {
    this.timeout(60_000);
    const s = scriptedRuntime(ok, { idleTurns: 0, historyBase: FORWARD_BUDGET.events - 200 });
    const running = runWorkflow(
      fanout.definition as never,
      inputOf({ id: 'f-1', kids: 300 }),
      s.runtime,
    );
    await s.idle();
    const kids = s.commands.filter((c) => c.type === 'child').length;
    const parked = s.query<SagaStatus>(statusQuery.name).parked;
    assert.match(parked?.error ?? 'not parked', /^history-budget: /);
    assert.ok(
      s.history() <= FORWARD_BUDGET.events,
      `${kids} children started, history ${s.history()} > FORWARD_BUDGET ${FORWARD_BUDGET.events}: no child was refused`,
    );
    s.signal('cancel', { reason: 'end', by: 'test' });
    assert.equal((await running).outcome, 'cancelled');
  });

  it('a stream of refused operator retries ends the run at its last line, under the limit', async function () {
    this.timeout(120_000);
    const s = scriptedRuntime(
      (call) => {
        if (call.activity === 'pay') throw outage(10_000, 1000);
        return ok(call);
      },
      { idleTurns: 0, historyBase: RETRY_BUDGET.events },
    );
    // Started by the emulator, which follows the chain if the unwind moves on to a new run.
    let ended: Closed | undefined;
    const closing = s
      .start(
        (runtime, input) => runWorkflow(polling.definition as never, input as never, runtime),
        inputOf({ id: 'p-2', polls: 0 }),
      )
      .then((c) => (ended = c));
    await s.idle();
    assert.equal(s.query<SagaStatus>(statusQuery.name).parked?.step, 'pay');
    // An operator's (or a runbook's) `retry` now and then, for days, as signals (each written
    // to history before the run sees it), until the run has closed and Temporal refuses them.
    // Temporal takes the signals that arrive together in one task (one event each, and the
    // task's three): about 4,000 take the run from its retry budget to its last line.
    let sent = 0;
    for (; sent < 10_000 && !ended; sent++) {
      s.signal('retryStep', { by: 'cron', step: 'pay' });
      if (sent % 250 === 249) await s.idle();
    }
    const closed = await closing;
    assert.equal(closed.status, 'completed', `after ${sent} retries: ${JSON.stringify(closed)}`);
    const result = (closed as { result: { outcome: string } }).result;
    assert.equal(result.outcome, 'history-budget', `after ${sent} retries`);
    assert.ok(
      s.history() <= TEMPORAL_HISTORY_LIMIT,
      `history passed ${TEMPORAL_HISTORY_LIMIT} with the run still parked`,
    );
  });
});
