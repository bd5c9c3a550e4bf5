import { strict as assert } from 'node:assert';
import type { ReconcileFacts } from '../../../src/reconcile/facts';
import { NOW, orderRun, charge, refund, cleanFacts, classify, classesOf } from './classify-facts';

describe('reconcile: the claim after Temporal forgot the runs (time passes)', () => {
  /** cleanFacts, then retention deleted every closed run and the topic was read again. */
  function afterTimePassed(): ReconcileFacts {
    const facts = cleanFacts();
    const settledAt = NOW.toISOString();
    facts.claims = [
      {
        orderId: 'o1',
        workflowId: 'OrderPlaced:v:o1@1',
        runId: 'run-o1',
        fingerprint: 'fp-o1',
        claimedAt: settledAt,
        settled: 'completed',
        settledAt,
      },
      {
        orderId: 'o2',
        workflowId: 'OrderPlaced:v:o2@1',
        runId: 'run-o2',
        fingerprint: 'fp-o2',
        claimedAt: settledAt,
        settled: 'refunded',
        settledAt,
      },
    ];
    // The runs left under the owners' workflow IDs are the re-read's, and ended duplicate;
    // the cancellation's run is gone and its re-read has not started yet.
    facts.workflows = [
      orderRun('o1', 'duplicate', { runId: 'run-o1-again' }),
      orderRun('o2', 'duplicate', { runId: 'run-o2-again' }),
    ];
    return facts;
  }

  it('judges each order by its claim once the owning run is gone: clean', () => {
    assert.deepEqual(classify(afterTimePassed()), []);
    // Without the claims the same world could not be judged: o2's cancellation has no run.
    const blind = afterTimePassed();
    delete blind.claims;
    assert.deepEqual(classesOf(blind), ['event-without-workflow o2']);
  });

  it('still finds a second charge, refunded or not, and names the owning run', () => {
    const facts = afterTimePassed();
    const o2 = facts.effects.get('o2')!;
    o2.charges.push(charge('ch2b'));
    o2.refunds.push(refund('ch2b'));
    const found = classify(facts);
    assert.deepEqual(
      found.map((d) => `${d.class} ${d.subject}`),
      ['multiple-effects-per-order o2'],
    );
    assert.equal(
      found[0]!.detail,
      '2 charges (2 refunds): charged more than once (owner OrderPlaced:v:o2@1, run run-o2, settled refunded)',
    );
    // And a completed order charged again after the re-read: two charges not refunded.
    facts.effects.get('o1')!.charges.push(charge('ch1b'));
    assert.deepEqual(classesOf(facts), [
      'multiple-effects-per-order o1',
      'multiple-effects-per-order o2',
      'charge-amount-mismatch o1',
    ]);
  });

  it('reports a lost cancellation of a completed order even though the claim has settled', () => {
    const facts = afterTimePassed();
    facts.claims![1] = { ...facts.claims![1]!, settled: 'completed' };
    facts.effects.get('o2')!.refunds = [];
    assert.deepEqual(classesOf(facts), ['event-without-workflow o2', 'refund-missing o2']);
  });
});
