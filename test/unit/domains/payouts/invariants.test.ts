import { strict as assert } from 'node:assert';
import {
  judgePayout,
  payoutOutcomeOfSettlement,
  type PayoutEvidence,
} from '../../../../src/domains/payouts/invariants';

const transfer = (id: string, amountMinor = 4200) => ({ id, amountMinor });
const reversal = (chargeId: string, amountMinor = 4200) => ({ chargeId, amountMinor });
const paid: PayoutEvidence = {
  outcome: 'completed',
  cancelled: false,
  amountMinor: 4200,
  transfers: [transfer('t1')],
  reversals: [],
  notices: 1,
  runs: [{ workflowId: 'PayoutRequested:p1@1', step: 'completed' }],
};
const invariants = (e: PayoutEvidence) => judgePayout(e).map((b) => b.invariant);

describe('payout invariants (one owner: demo, chaos and reconcile judge here)', () => {
  it('a paid payout with one transfer of its amount and one notice is sound', () => {
    assert.deepEqual(judgePayout(paid), []);
  });

  it('transferred at most once, even when the second transfer was reversed', () => {
    assert.deepEqual(invariants({ ...paid, transfers: [transfer('t1'), transfer('t2')] }), [
      'one-transfer',
      'net-transfer',
    ]);
    assert.deepEqual(
      invariants({
        ...paid,
        transfers: [transfer('t1'), transfer('t2')],
        reversals: [reversal('t2')],
      }),
      ['one-transfer'],
    );
  });

  it('a paid payout moved exactly its amount', () => {
    assert.deepEqual(judgePayout({ ...paid, transfers: [transfer('t1', 4100)] }), [
      { invariant: 'net-transfer', detail: 'completed with net transfer 4100 ≠ amount 4200' },
    ]);
  });

  it('a cancelled payout is reversed exactly once, never above what was transferred', () => {
    const cancelled = { ...paid, outcome: 'cancelled', cancelled: true };
    assert.deepEqual(judgePayout({ ...cancelled, reversals: [reversal('t1')] }), []);
    assert.deepEqual(judgePayout(cancelled), [
      { invariant: 'reversal-missing', detail: 'cancelled but net transfer is 4200' },
    ]);
    assert.deepEqual(
      invariants({ ...cancelled, reversals: [reversal('t1', 2100), reversal('t1', 2100)] }),
      ['one-reversal'],
    );
    assert.deepEqual(invariants({ ...cancelled, reversals: [reversal('t1', 5000)] }), [
      'over-reversed',
    ]);
    assert.deepEqual(invariants({ ...cancelled, reversals: [reversal('t1'), reversal('t9')] }), [
      'one-reversal',
      'over-reversed',
    ]);
    // A cancellation event with the run's outcome unknown still asks for the reversal.
    assert.deepEqual(invariants({ ...cancelled, outcome: undefined }), ['reversal-missing']);
  });

  it('a refused payout moved nothing', () => {
    const refused = { ...paid, outcome: 'refused', transfers: [], notices: 0 };
    assert.deepEqual(judgePayout(refused), []);
    assert.deepEqual(invariants({ ...refused, transfers: [transfer('t1')] }), ['net-transfer']);
  });

  it('the beneficiary is told at most once', () => {
    assert.deepEqual(invariants({ ...paid, notices: 2 }), ['one-notice']);
  });

  it('a duplicate never acts: every run but the owner ends duplicate or conflict', () => {
    const runs = (...steps: string[]) => steps.map((step, i) => ({ workflowId: `w${i}`, step }));
    assert.deepEqual(judgePayout({ ...paid, runs: runs('completed', 'duplicate') }), []);
    assert.deepEqual(judgePayout({ ...paid, runs: runs('payout_conflict', 'completed') }), []);
    assert.deepEqual(judgePayout({ ...paid, runs: runs('completed', 'completed') }), [
      {
        invariant: 'duplicate-acted',
        detail: '2 runs acted: w0 (completed), w1 (completed)',
      },
    ]);
    assert.deepEqual(invariants({ ...paid, runs: runs('completed', 'refused') }), [
      'duplicate-acted',
    ]);
  });

  it('reads a claim: reversed and unwound are cancellations, the rest the saga’s own word', () => {
    assert.equal(payoutOutcomeOfSettlement('reversed'), 'cancelled');
    assert.equal(payoutOutcomeOfSettlement('unwound'), 'cancelled');
    assert.equal(payoutOutcomeOfSettlement('completed'), 'completed');
    assert.equal(payoutOutcomeOfSettlement('refused'), 'refused');
  });
});
