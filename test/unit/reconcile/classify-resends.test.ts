import { strict as assert } from 'node:assert';
import type { ReconcileFacts } from '../../../src/reconcile/facts';
import { placed, orderRun, charge, cleanFacts, classify, classesOf } from './classify-facts';

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
