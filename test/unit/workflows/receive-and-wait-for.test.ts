import { strict as assert } from 'node:assert';
import { defineSignal } from '@temporalio/workflow';
import { defineWorkflow, runWorkflow } from '../../../src/workflows/define-workflow';
import { inputOf, scriptedRuntime } from '../../support/emulator/runtime';

type Acts = { open(i: { key: string }): Promise<void> };
type Loan = { id: string; how: 'receive' | 'waitFor' };

/** A person's answer; sent with or without a payload. */
const approveLoan = defineSignal<[{ by: string } | undefined]>('approveLoan');

/**
 * The approval gate both ways: `receive` says how the wait ended; `waitFor` (deprecated) keeps
 * the meaning a body written against it relies on, `if (!approval) return fail(…)`.
 */
const loan = defineWorkflow<Loan, Acts>()({
  name: 'loan',
  domain: 'loans',
  entity: { kind: 'loan', id: (d) => d.id },
  outcomes: ['declined'],
  steps: { open: { activity: 'open', retry: 'own' } },
  async run({ data, steps, receive, waitFor, fail }) {
    if (data.how === 'receive') {
      const answer = await receive('approval', approveLoan, { timeout: '20 seconds' });
      if (answer.timedOut) return fail('declined', 'no approval within 20 seconds');
      await steps.open();
      return { answer };
    }
    // The deprecated shape, as a body written against it reads.
    const approval = await waitFor('approval', approveLoan, { timeout: '20 seconds' });
    if (!approval) return fail('declined', 'no approval within 20 seconds');
    await steps.open();
    return { approval };
  },
});

/** Runs one loan; `signal` is in history before the run starts (none: the deadline passes). */
async function runLoan(how: Loan['how'], ...signal: [] | [{ by: string } | undefined]) {
  const s = scriptedRuntime(async (call) =>
    call.activity === 'claimEntity' ? { kind: 'owner', claim: {} } : undefined,
  );
  if (signal.length) s.signalBeforeStart(approveLoan.name, ...signal);
  const result = await runWorkflow(
    loan.definition as never,
    inputOf({ id: 'l-1', how }),
    s.runtime,
  );
  return { result, opened: s.names().includes('open') };
}

describe('receive and the deprecated waitFor: one wait, two answers', () => {
  it('waitFor returns the value that arrived, and undefined when the deadline passed', async () => {
    const approved = await runLoan('waitFor', { by: 'ada' });
    assert.equal(approved.result.outcome, 'completed');
    assert.deepEqual(approved.result.approval, { by: 'ada' });
    const unanswered = await runLoan('waitFor');
    assert.deepEqual([unanswered.result.outcome, unanswered.opened], ['declined', false]);
  });

  it('receive says timedOut past the deadline, and tells a signal without a payload from it', async () => {
    const unanswered = await runLoan('receive');
    assert.deepEqual([unanswered.result.outcome, unanswered.opened], ['declined', false]);
    const bare = await runLoan('receive', undefined);
    assert.equal(bare.result.outcome, 'completed');
    assert.deepEqual(bare.result.answer, { timedOut: false, value: undefined });
    const approved = await runLoan('receive', { by: 'ada' });
    assert.deepEqual(approved.result.answer, { timedOut: false, value: { by: 'ada' } });
  });
});
