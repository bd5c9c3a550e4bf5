import { strict as assert } from 'node:assert';
import { defineSignal } from '@temporalio/workflow';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import { CHECKPOINT_LINE } from '../../../src/workflows/run-budget';
import type { RunInput } from '../../../src/workflows/run-checkpoint';
import { statusQuery, type SagaStatus } from '../../../src/workflows/saga-status';
import { inputOf, scriptedRuntime, type Answer } from '../../support/emulator/runtime';

type Acts = {
  pay(i: { key: string }): Promise<{ payId: string }>;
  refund(i: { key: string; payId?: string }): Promise<void>;
  check(i: { key: string }): Promise<{ settled: boolean }>;
};

const nudge = defineSignal<[{ n: number }]>('nudge');

/** Pays once, then polls every minute until the payout settles, checkpointing as it goes. */
const payout = defineWorkflow<{ id: string; settlesAt: number }, Acts>()({
  name: 'checkpointed',
  domain: 'checkpoints',
  entity: { kind: 'cp', id: (d) => d.id },
  steps: {
    pay: {
      activity: 'pay',
      retry: 'foreign',
      compensate: {
        name: 'refund',
        activity: 'refund',
        retry: 'foreign',
        input: ({ result }) => ({ payId: result?.payId }),
      },
    },
    check: { activity: 'check', retry: 'foreign' },
  },
  async run({ steps, sleep, checkpoint, resumed, data }) {
    const from = (resumed as { polls: number } | undefined)?.polls ?? 0;
    if (from === 0) await steps.pay();
    for (let polls = from; ; polls++) {
      await checkpoint({ polls });
      const { settled } = await steps.check.each(`poll-${polls}`);
      if (settled || polls >= data.settlesAt) return { polls };
      await sleep('poll', '1 minute');
    }
  },
});

/** Runs a chain to its end on the emulator, which starts each next run with its input. */
async function runChain(answer: Answer, input: RunInput<unknown>, cancelAt?: number) {
  const s = scriptedRuntime(answer, { idleTurns: 0 });
  if (cancelAt !== undefined)
    s.at(s.now() + cancelAt, () => s.signal('cancel', { reason: 'stop', by: 'ops' }));
  const closed = await s.start(
    (runtime, next) => runWorkflow(payout.definition as never, next as RunInput<unknown>, runtime),
    input,
  );
  const runs = 1 + s.commands.filter((c) => c.type === 'continue-as-new').length;
  return { s, closed, runs };
}

const answer: Answer = (call) => {
  if (call.activity === 'claimEntity') return { kind: 'owner', claim: {} };
  if (call.activity === 'pay') return { payId: 'p_1' };
  if (call.activity === 'check') return { settled: false };
  return {};
};

describe('a checkpoint of a long-lived loop', () => {
  it('continues as new past the line, keeps the claim and the owed undo, and ends', async function () {
    this.timeout(120_000);
    const { s, closed, runs } = await runChain(answer, inputOf({ id: 'c-1', settlesAt: 3000 }));
    assert.equal(closed.status, 'completed', JSON.stringify(closed));
    const result = (closed as { result: { outcome: string; polls: number } }).result;
    assert.equal(result.outcome, 'completed');
    assert.equal(result.polls, 3000);
    assert.ok(runs >= 3, `${runs} runs`);
    assert.ok(
      s.history() < CHECKPOINT_LINE.events + 100,
      `the last run wrote ${s.history()} events`,
    );
    const all = s.names();
    assert.equal(all.filter((n) => n === 'claimEntity').length, 1, 'claimed once per chain');
    assert.equal(all.filter((n) => n === 'pay').length, 1, 'paid once per chain');
    assert.equal(all.filter((n) => n === 'settleClaim').length, 1, 'settled by the last run');
  });

  it('a cancel in a later run undoes what the first run did, with its result', async function () {
    this.timeout(120_000);
    const refunds: unknown[] = [];
    // A run polls for about 15 virtual hours before it checkpoints: the cancel lands in the third.
    const { s, closed, runs } = await runChain(
      (call, info) => {
        if (call.activity === 'refund') refunds.push(call.input);
        return answer(call, info);
      },
      inputOf({ id: 'c-2', settlesAt: 1_000_000 }),
      36 * 3_600_000,
    );
    assert.equal(closed.status, 'completed', JSON.stringify(closed));
    assert.equal((closed as { result: { outcome: string } }).result.outcome, 'cancelled');
    assert.ok(runs >= 3, `${runs} runs`);
    assert.deepEqual(refunds, [{ payId: 'p_1', key: 'cp:c-2:refund' }]);
    const status = s.query<SagaStatus>(statusQuery.name);
    assert.equal(status.checkpoints, runs - 1);
  });

  it('a call already made is refused in the next run (its key is spent)', async () => {
    const again = defineWorkflow<{ id: string }, Acts>()({
      name: 'again',
      domain: 'checkpoints',
      entity: { kind: 'cp', id: (d) => d.id },
      steps: { pay: { activity: 'pay', retry: 'foreign' } },
      async run({ steps, resumed }) {
        await steps.pay();
        if (!resumed) throw new ContinuedAsNewProbe();
      },
    });
    class ContinuedAsNewProbe extends Error {}
    const s = scriptedRuntime(answer, { idleTurns: 0 });
    const resume = {
      body: { polls: 1 },
      calls: [{ name: 'pay', key: 'cp:c-3:pay' }],
      mailboxes: { [nudge.name]: [{ n: 1 }] },
      recoveryPoints: [],
      operatorActions: [],
      checkpoints: 1,
    };
    const err = await runWorkflow(
      again.definition as never,
      { ...inputOf({ id: 'c-3' }), resume },
      s.runtime,
    ).then(
      () => assert.fail('completed'),
      (e: unknown) => e as Error,
    );
    assert.match(err.message, /step pay was called a second time/);
    assert.ok(!s.names().includes('pay'));
  });
});
