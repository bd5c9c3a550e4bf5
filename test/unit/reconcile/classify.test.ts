import { strict as assert } from 'node:assert';
import { computeNetCharge, countByClass } from '../../../src/reconcile/classify';
import {
  NOW,
  placed,
  orderRun,
  charge,
  refund,
  cleanFacts,
  classify,
  classesOf,
} from './classify-facts';

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
    assert.equal(Object.keys(counts).length, 11);
    assert.equal(counts['multiple-effects-per-order'], 0);
    assert.equal(counts['order-conflict'], 0);
  });
});
