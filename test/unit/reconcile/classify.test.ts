import { strict as assert } from 'node:assert';
import {
  classifyDiscrepancies,
  computeNetCharge,
  countByClass,
} from '../../../src/reconcile/classify';
import type { ReconcileFacts, TopicEvent, WorkflowFacts } from '../../../src/reconcile/facts';

const NOW = new Date('2026-01-01T12:00:00Z');

function placed(orderId: string, offset: number, over: Partial<TopicEvent> = {}): TopicEvent {
  return {
    identity: `v:${orderId}@1`,
    workflowId: `OrderPlaced:v:${orderId}@1`,
    workflowType: 'orderFulfillment',
    eventType: 'OrderPlaced',
    aggregateId: orderId,
    orderId,
    totalMinor: 2500,
    fingerprint: `fp-${orderId}`,
    coordinates: `orders/0/${offset}`,
    ...over,
  };
}

function cancelledEvent(orderId: string, offset: number): TopicEvent {
  return {
    identity: `v:${orderId}@2`,
    workflowId: `OrderCancelled:v:${orderId}@2`,
    workflowType: 'orderCancellation',
    eventType: 'OrderCancelled',
    aggregateId: orderId,
    orderId,
    coordinates: `orders/0/${offset}`,
  };
}

function orderRun(orderId: string, step: string, over: Partial<WorkflowFacts> = {}): WorkflowFacts {
  return {
    workflowId: `OrderPlaced:v:${orderId}@1`,
    runId: `run-${orderId}`,
    type: 'orderFulfillment',
    status: 'COMPLETED',
    orderId,
    step,
    identity: `v:${orderId}@1`,
    startTime: new Date(NOW.getTime() - 60_000),
    ...over,
  };
}

function cancelRun(orderId: string): WorkflowFacts {
  return {
    workflowId: `OrderCancelled:v:${orderId}@2`,
    runId: `run-c-${orderId}`,
    type: 'orderCancellation',
    status: 'COMPLETED',
    orderId,
    step: 'cancelled',
    identity: `v:${orderId}@2`,
    startTime: new Date(NOW.getTime() - 30_000),
  };
}

const charge = (id: string, amountMinor = 2500) => ({ id, amountMinor });
const refund = (chargeId: string, amountMinor = 2500) => ({ chargeId, amountMinor });

/** A clean world: o1 completed and charged once; o2 cancelled after completion and refunded. */
function cleanFacts(): ReconcileFacts {
  return {
    events: [placed('o1', 0), placed('o1', 1), placed('o2', 2), cancelledEvent('o2', 3)],
    poison: [{ coordinates: 'orders/0/4', reason: 'unparseable', key: 'o-poison' }],
    ledger: [
      {
        identity: 'v:o1@1',
        eventType: 'OrderPlaced',
        aggregateId: 'o1',
        workflowId: 'OrderPlaced:v:o1@1',
      },
    ],
    workflows: [orderRun('o1', 'completed'), orderRun('o2', 'completed'), cancelRun('o2')],
    effects: new Map([
      ['o1', { charges: [charge('ch1')], refunds: [], emails: [{}] }],
      ['o2', { charges: [charge('ch2')], refunds: [refund('ch2')], emails: [{}] }],
    ]),
    reservations: [
      { key: 'OrderPlaced:o1@1:reserve', orderId: 'o1', status: 'reserved' },
      { key: 'OrderPlaced:o2@1:reserve', orderId: 'o2', status: 'released' },
    ],
    dlq: [
      {
        coordinates: 'orders.dlq/0/0',
        key: 'o-poison',
        reason: 'unparseable',
        source: 'orders/0/4',
      },
    ],
  };
}

const classify = (facts: ReconcileFacts, stuckAfterMs?: number) =>
  classifyDiscrepancies(facts, { now: NOW, ...(stuckAfterMs ? { stuckAfterMs } : {}) });
const classesOf = (facts: ReconcileFacts) => classify(facts).map((d) => `${d.class} ${d.subject}`);

describe('reconcile: classification of discrepancies', () => {
  it('reports nothing for a consistent world (duplicates, cancellation, dead-lettered poison)', () => {
    assert.deepEqual(classify(cleanFacts()), []);
  });

  it('finds an event without a workflow, and says whether the ledger has it', () => {
    const facts = cleanFacts();
    facts.events.push(placed('o3', 9));
    const found = classify(facts);
    assert.deepEqual(
      found.map((d) => d.class),
      ['event-without-workflow'],
    );
    assert.equal(found[0]!.subject, 'o3');
    assert.match(found[0]!.detail, /on the topic, not in the ledger/);
  });

  it('does not expect a workflow for an occurrence the bridge dead-lettered (stale, conflict)', () => {
    const facts = cleanFacts();
    facts.events.push(placed('o4', 9, { identity: 'v:o4@1' }));
    facts.dlq.push({
      coordinates: 'orders.dlq/0/1',
      key: 'o4',
      reason: 'stale-version',
      source: 'orders/0/9',
    });
    assert.deepEqual(classify(facts), []);
  });

  it('finds a workflow without an event (memo identity unknown to topic and ledger)', () => {
    const facts = cleanFacts();
    facts.workflows.push(orderRun('o9', 'completed'));
    assert.deepEqual(classesOf(facts), ['workflow-without-event o9']);
  });

  it('does not judge workflows older than what retention left on the topic', () => {
    const facts = cleanFacts();
    facts.workflows.push(
      orderRun('o9', 'completed', { startTime: new Date(NOW.getTime() - 86_400_000) }),
    );
    facts.eventsKnownSince = new Date(NOW.getTime() - 3_600_000);
    assert.deepEqual(classify(facts), []);
    facts.eventsKnownSince = new Date(NOW.getTime() - 2 * 86_400_000);
    assert.deepEqual(classesOf(facts), ['workflow-without-event o9']);
  });

  it('finds a double charge as multiple effects and an amount mismatch', () => {
    const facts = cleanFacts();
    facts.effects.get('o1')!.charges.push(charge('ch1b'));
    const found = classify(facts);
    assert.deepEqual(
      found.map((d) => `${d.class} ${d.subject}`),
      ['multiple-effects-per-order o1', 'charge-amount-mismatch o1'],
    );
    assert.equal(found[0]!.detail, '2 charges not refunded (2 charges, 0 refunds)');
  });

  it('finds a completed order charged a different amount', () => {
    const facts = cleanFacts();
    facts.effects.get('o1')!.charges[0]!.amountMinor = 2400;
    const found = classify(facts);
    assert.deepEqual(
      found.map((d) => d.class),
      ['charge-amount-mismatch'],
    );
    assert.match(found[0]!.detail, /2400 ≠ total 2500/);
  });

  it('finds a completed order never charged, and a declined order that was charged', () => {
    const facts = cleanFacts();
    facts.effects.delete('o1');
    facts.events.push(placed('o5', 9));
    facts.workflows.push(orderRun('o5', 'declined'));
    facts.effects.set('o5', { charges: [charge('ch5')], refunds: [], emails: [] });
    assert.deepEqual(classesOf(facts), ['charge-amount-mismatch o1', 'charge-amount-mismatch o5']);
  });

  it('finds a missing refund for a cancelled order (by event or by outcome)', () => {
    const facts = cleanFacts();
    facts.effects.get('o2')!.refunds = [];
    facts.events.push(placed('o6', 9));
    facts.workflows.push(orderRun('o6', 'cancelled'));
    facts.effects.set('o6', { charges: [charge('ch6')], refunds: [], emails: [] });
    assert.deepEqual(classesOf(facts), ['refund-missing o2', 'refund-missing o6']);
  });

  it('finds stock not restored for cancelled, declined and rejected orders only', () => {
    const facts = cleanFacts();
    facts.reservations[1]!.status = 'reserved';
    facts.events.push(placed('o7', 9));
    facts.workflows.push(orderRun('o7', 'declined'));
    facts.reservations.push({ key: 'OrderPlaced:o7@1:reserve', orderId: 'o7', status: 'reserved' });
    assert.deepEqual(classesOf(facts), ['stock-not-restored o2', 'stock-not-restored o7']);
  });

  it('finds more than one confirmation email', () => {
    const facts = cleanFacts();
    facts.effects.get('o1')!.emails.push({});
    const found = classify(facts);
    assert.deepEqual(
      found.map((d) => `${d.class} ${d.subject}`),
      ['multiple-effects-per-order o1'],
    );
    assert.equal(found[0]!.detail, '2 confirmation emails');
  });

  it('finds orders running longer than the threshold, and leaves their effects alone', () => {
    const facts = cleanFacts();
    facts.events.push(placed('o8', 9));
    facts.workflows.push(
      orderRun('o8', 'charging', {
        status: 'RUNNING',
        startTime: new Date(NOW.getTime() - 11 * 60_000),
      }),
    );
    // In flight: a charge without its email yet is not a discrepancy.
    facts.effects.set('o8', { charges: [charge('ch8'), charge('ch8b')], refunds: [], emails: [] });
    const found = classify(facts);
    assert.deepEqual(
      found.map((d) => `${d.class} ${d.subject}`),
      ['stuck-order o8'],
    );
    assert.match(found[0]!.detail, /running for 11 min at charging/);
    assert.deepEqual(classify(facts, 20 * 60_000), []);
  });

  it('finds DLQ messages without a (known) reason and poison missing from the DLQ', () => {
    const facts = cleanFacts();
    facts.dlq.push({ coordinates: 'orders.dlq/0/1', key: 'x' });
    facts.dlq.push({ coordinates: 'orders.dlq/0/2', key: 'y', reason: 'bogus' });
    facts.poison.push({ coordinates: 'orders/1/7', reason: 'validation-failed', key: 'z' });
    assert.deepEqual(classesOf(facts), [
      'dlq-without-reason orders.dlq/0/1',
      'dlq-without-reason orders.dlq/0/2',
      'poison-not-dead-lettered orders/1/7',
    ]);
  });

  it('computes net charges from refunds per charge, and counts every class', () => {
    assert.deepEqual(
      computeNetCharge({ charges: [charge('a'), charge('b')], refunds: [refund('a')], emails: [] }),
      { netMinor: 2500, unrefunded: 1 },
    );
    const counts = countByClass([{ class: 'stuck-order', subject: 's', detail: '' }]);
    assert.equal(counts['stuck-order'], 1);
    assert.equal(counts['refund-missing'], 0);
    assert.equal(Object.keys(counts).length, 10);
    assert.equal(counts['multiple-effects-per-order'], 0);
    assert.equal(counts['order-conflict'], 0);
  });
});

/**
 * o1 placed a second time by a producer's mistake: under a fresh event ID without a version
 * (identity = event ID) or as version 2 with the same data. Same payload, so the same
 * fingerprint; the second run found the order owned and ended `duplicate`.
 */
function resentFacts(how: 'fresh-id' | 'version-bump'): ReconcileFacts {
  const facts = cleanFacts();
  const identity = how === 'fresh-id' ? 'e:e-resent' : 'v:o1@2';
  facts.events.push(placed('o1', 5, { identity, workflowId: `OrderPlaced:${identity}` }));
  facts.workflows.push(
    orderRun('o1', 'duplicate', { workflowId: `OrderPlaced:${identity}`, identity }),
  );
  return facts;
}

describe('reconcile: one order, one set of effects (whatever the producer re-sent)', () => {
  for (const how of ['fresh-id', 'version-bump'] as const) {
    it(`accepts a ${how} resend whose run ended duplicate, with one set of effects`, () => {
      assert.deepEqual(classify(resentFacts(how)), []);
    });
  }

  it('judges the owning run, not the duplicate, even when the duplicate came first', () => {
    const facts = resentFacts('fresh-id');
    // The resend sits before the original on the topic; its run ended duplicate, and the
    // owner completed with one charge of the total: clean.
    facts.events.unshift(facts.events.pop()!);
    assert.deepEqual(classify(facts), []);
    // And the owner's outcome is what is checked: completed but never charged is found.
    facts.effects.delete('o1');
    assert.deepEqual(classesOf(facts), ['charge-amount-mismatch o1']);
  });

  it('judges the run that acted when the first placement was rejected and a resend took the order', () => {
    const facts = resentFacts('fresh-id');
    facts.workflows.find((w) => w.workflowId === 'OrderPlaced:v:o1@1')!.step = 'rejected';
    facts.workflows.at(-1)!.step = 'completed';
    facts.reservations[0] = { key: 'order:o1:reserve', orderId: 'o1', status: 'reserved' };
    assert.deepEqual(classify(facts), []);
  });

  it('finds every effect doubled across keys and runs of one order, in one discrepancy', () => {
    const facts = resentFacts('version-bump');
    // Both runs acted (no claim), each under its own keys: the old per-workflow key format
    // and the per-order one are grouped alike, by the order ID the rows record.
    facts.workflows.at(-1)!.step = 'completed';
    facts.reservations.push({ key: 'order:o1:reserve', orderId: 'o1', status: 'reserved' });
    facts.effects.get('o1')!.charges.push(charge('ch1b'));
    facts.effects.get('o1')!.emails.push({});
    const found = classify(facts);
    assert.deepEqual(
      found.map((d) => `${d.class} ${d.subject}`),
      ['multiple-effects-per-order o1', 'charge-amount-mismatch o1'],
    );
    assert.equal(
      found[0]!.detail,
      '2 reservations (OrderPlaced:o1@1:reserve, order:o1:reserve); ' +
        '2 charges not refunded (2 charges, 0 refunds); 2 confirmation emails',
    );
  });

  it('finds two reservations of one order even when both were released', () => {
    const facts = cleanFacts();
    facts.reservations.push({ key: 'order:o2:reserve', orderId: 'o2', status: 'released' });
    assert.deepEqual(classesOf(facts), ['multiple-effects-per-order o2']);
  });

  it('judges an order known only from its reservations', () => {
    const facts = cleanFacts();
    facts.reservations.push(
      { key: 'a', orderId: 'o-orphan', status: 'reserved' },
      { key: 'b', orderId: 'o-orphan', status: 'reserved' },
    );
    assert.deepEqual(classesOf(facts), ['multiple-effects-per-order o-orphan']);
  });

  it('reports an order placed with a different payload whose run ended order-conflict', () => {
    const facts = cleanFacts();
    facts.events.push(
      placed('o1', 7, {
        identity: 'e:e-other',
        workflowId: 'OrderPlaced:e:e-other',
        fingerprint: 'fp-changed',
      }),
    );
    facts.workflows.push(
      orderRun('o1', 'order_conflict', {
        workflowId: 'OrderPlaced:e:e-other',
        identity: 'e:e-other',
      }),
    );
    const found = classify(facts);
    assert.deepEqual(
      found.map((d) => `${d.class} ${d.subject}`),
      ['order-conflict o1'],
    );
    assert.equal(
      found[0]!.detail,
      'placed with 2 different payloads: OrderPlaced:v:o1@1 (fingerprint fp-o1) vs ' +
        'OrderPlaced:e:e-other (fingerprint fp-changed); ' +
        'OrderPlaced:e:e-other ended order-conflict (nothing acted on)',
    );
  });

  it('reports different payloads for one order even while a run is in flight or before any ended', () => {
    const facts = cleanFacts();
    facts.events.push(
      placed('o1', 7, {
        identity: 'v:o1@2',
        workflowId: 'OrderPlaced:v:o1@2',
        fingerprint: 'fp-x',
      }),
    );
    facts.workflows.push(
      orderRun('o1', 'reserving', {
        workflowId: 'OrderPlaced:v:o1@2',
        identity: 'v:o1@2',
        status: 'RUNNING',
      }),
    );
    assert.deepEqual(classesOf(facts), ['order-conflict o1']);
  });

  it('reports a run that ended order-conflict even without the other payload on the topic', () => {
    const facts = cleanFacts();
    facts.workflows.push(
      orderRun('o1', 'order_conflict', { workflowId: 'OrderPlaced:e-9', identity: 'v:o1@1' }),
    );
    const found = classify(facts);
    assert.deepEqual(
      found.map((d) => `${d.class} ${d.subject}`),
      ['order-conflict o1'],
    );
    assert.match(found[0]!.detail, /^OrderPlaced:e-9 ended order-conflict/);
  });

  it('leaves a different payload alone when the bridge dead-lettered it (identity conflict)', () => {
    const facts = cleanFacts();
    facts.events.push(placed('o1', 8, { fingerprint: 'fp-changed' }));
    facts.dlq.push({
      coordinates: 'orders.dlq/0/1',
      key: 'o1',
      reason: 'identity-conflict',
      source: 'orders/0/8',
    });
    assert.deepEqual(classify(facts), []);
  });
});

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
