import { strict as assert } from 'node:assert';
import type { EntityClaim } from '../../../src/db/entity-claim';
import { classifyDiscrepancies } from '../../../src/reconcile/classify';
import type { ReconcileFacts, TopicEvent, WorkflowFacts } from '../../../src/reconcile/facts';

const NOW = new Date('2026-01-01T12:00:00Z');

function requested(payoutId: string, offset: number, version = 1): TopicEvent {
  return {
    identity: `v:${payoutId}@${version}`,
    workflowId: `PayoutRequested:v:${payoutId}@${version}`,
    workflowType: 'payout',
    eventType: 'PayoutRequested',
    aggregateId: payoutId,
    orderId: payoutId,
    amountMinor: 4200,
    fingerprint: `fp-${payoutId}`,
    coordinates: `orders/1/${offset}`,
  };
}

function cancelled(payoutId: string, offset: number): TopicEvent {
  return {
    identity: `e:${payoutId}-cancel`,
    workflowId: `PayoutCancelled:e:${payoutId}-cancel`,
    workflowType: 'payoutCancellation',
    eventType: 'PayoutCancelled',
    aggregateId: payoutId,
    orderId: payoutId,
    coordinates: `orders/1/${offset}`,
  };
}

function runOf(e: TopicEvent, step: string, over: Partial<WorkflowFacts> = {}): WorkflowFacts {
  return {
    workflowId: e.workflowId,
    runId: `run-${e.identity}`,
    type: e.workflowType,
    status: 'COMPLETED',
    orderId: e.orderId!,
    step,
    identity: e.identity,
    startTime: new Date(NOW.getTime() - 60_000),
    ...over,
  };
}

function claim(payoutId: string, settled?: string): EntityClaim {
  return {
    domain: 'payouts',
    entityId: payoutId,
    workflowId: `PayoutRequested:v:${payoutId}@1`,
    fingerprint: `fp-${payoutId}`,
    claimedAt: NOW.toISOString(),
    ...(settled ? { settled } : {}),
  };
}

const transfer = (id: string, amountMinor = 4200) => ({ id, amountMinor });
const reversal = (chargeId: string, amountMinor = 4200) => ({ chargeId, amountMinor });

/**
 * p1 paid, with a version bump that ended duplicate; p2 paid then cancelled and reversed by
 * the cancellation; p3 refused (blocked beneficiary).
 */
function cleanFacts(): ReconcileFacts {
  const p1 = requested('p1', 0);
  const p1bump = requested('p1', 1, 2);
  const p2 = requested('p2', 2);
  const p2cancel = cancelled('p2', 3);
  const p3 = requested('p3', 4);
  return {
    events: [p1, p1bump, p2, p2cancel, p3],
    poison: [],
    ledger: [],
    workflows: [
      runOf(p1, 'completed'),
      runOf(p1bump, 'duplicate'),
      runOf(p2, 'completed'),
      runOf(p2cancel, 'reversed'),
      runOf(p3, 'refused'),
    ],
    effects: new Map([
      ['p1', { charges: [transfer('t1')], refunds: [], emails: [{}] }],
      ['p2', { charges: [transfer('t2')], refunds: [reversal('t2')], emails: [{}] }],
    ]),
    reservations: [],
    dlq: [],
    claims: [],
    payoutClaims: [claim('p1', 'completed'), claim('p2', 'reversed'), claim('p3', 'refused')],
  };
}

const classify = (facts: ReconcileFacts) => classifyDiscrepancies(facts, { now: NOW });
const found = (facts: ReconcileFacts) => classify(facts).map((d) => `${d.class} ${d.subject}`);

describe('reconcile: payouts judged by the payout invariants', () => {
  it('reports nothing for paid, reversed and refused payouts (and never judges them as orders)', () => {
    assert.deepEqual(classify(cleanFacts()), []);
  });

  it('a second transfer is a multiple effect; a transfer that does not match the amount, a mismatch', () => {
    const facts = cleanFacts();
    facts.effects.set('p1', {
      charges: [transfer('t1'), transfer('t9')],
      refunds: [],
      emails: [{}],
    });
    facts.effects.set('p3', { charges: [transfer('t3', 100)], refunds: [], emails: [] });
    const all = classify(facts);
    assert.deepEqual(
      all.map((d) => `${d.class} ${d.subject}`),
      ['multiple-effects-per-order p1', 'charge-amount-mismatch p1', 'charge-amount-mismatch p3'],
    );
    assert.match(
      all[0]!.detail,
      /^payout: 2 transfers \(owner PayoutRequested:v:p1@1, settled completed\)$/,
    );
    assert.match(all[2]!.detail, /^payout: refused with net transfer 100 ≠ 0/);
  });

  it('a cancelled payout still holding its transfer is refund-missing; reversed twice, a multiple effect', () => {
    const facts = cleanFacts();
    facts.effects.set('p2', { charges: [transfer('t2')], refunds: [], emails: [{}] });
    assert.deepEqual(found(facts), ['refund-missing p2']);
    facts.effects.set('p2', {
      charges: [transfer('t2')],
      refunds: [reversal('t2', 2100), reversal('t2', 2100)],
      emails: [{}],
    });
    assert.deepEqual(found(facts), ['multiple-effects-per-order p2']);
  });

  it('a second run that acted (not duplicate) is a multiple effect', () => {
    const facts = cleanFacts();
    facts.workflows[1] = { ...facts.workflows[1]!, step: 'completed' };
    const all = classify(facts);
    assert.deepEqual(
      all.map((d) => `${d.class} ${d.subject}`),
      ['multiple-effects-per-order p1'],
    );
    assert.match(all[0]!.detail, /2 runs acted/);
  });

  it('judges by the claim once the runs are gone, and the claim answers their events', () => {
    const facts = cleanFacts();
    facts.workflows = [];
    assert.deepEqual(classify(facts), []);
    // The claim is the outcome: a refused payout must hold no transfer.
    facts.effects.set('p3', { charges: [transfer('t3')], refunds: [], emails: [] });
    assert.deepEqual(found(facts), ['charge-amount-mismatch p3']);
    facts.effects.delete('p3');
    // Without the claims, the events have no workflow.
    facts.payoutClaims = [];
    assert.deepEqual(found(facts), [
      'event-without-workflow p1',
      'event-without-workflow p1',
      'event-without-workflow p2',
      'event-without-workflow p2',
      'event-without-workflow p3',
    ]);
  });

  it('a cancellation of a payout that completed is not answered by its claim', () => {
    const facts = cleanFacts();
    facts.payoutClaims = [
      claim('p1', 'completed'),
      claim('p2', 'completed'),
      claim('p3', 'refused'),
    ];
    facts.workflows = facts.workflows.filter((w) => w.type !== 'payoutCancellation');
    facts.effects.set('p2', { charges: [transfer('t2')], refunds: [], emails: [{}] });
    assert.deepEqual(found(facts), ['event-without-workflow p2', 'refund-missing p2']);
  });

  it('leaves a payout in flight to stuck-order', () => {
    const facts = cleanFacts();
    facts.workflows[3] = { ...facts.workflows[3]!, status: 'RUNNING' };
    facts.effects.set('p2', { charges: [transfer('t2')], refunds: [], emails: [{}] });
    assert.deepEqual(classify(facts), []);
  });
});
