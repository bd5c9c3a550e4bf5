import { strict as assert } from 'node:assert';
import type { EntityClaim } from '../../../src/db/entity-claim';
import { CART_MAILS } from '../../../src/domains/carts/workflows/cart-names';
import { classifyDiscrepancies } from '../../../src/reconcile/classify';
import type {
  OrderEffects,
  ReconcileFacts,
  TopicEvent,
  WorkflowFacts,
} from '../../../src/reconcile/facts';

const NOW = new Date('2026-01-01T12:00:00Z');
const SKUS = ['apple', 'pear', 'fig'];

function checkedOut(cartId: string, offset: number): TopicEvent {
  return {
    identity: `v:${cartId}@1`,
    workflowId: `CartCheckedOut:v:${cartId}@1`,
    workflowType: 'cart',
    eventType: 'CartCheckedOut',
    aggregateId: cartId,
    orderId: cartId,
    totalMinor: 2500,
    lineSkus: SKUS,
    fingerprint: `fp-${cartId}`,
    coordinates: `orders/2/${offset}`,
  };
}

function cancelled(cartId: string, offset: number): TopicEvent {
  return {
    identity: `e:${cartId}-cancel`,
    workflowId: `CartCancelled:e:${cartId}-cancel`,
    workflowType: 'cartCancellation',
    eventType: 'CartCancelled',
    aggregateId: cartId,
    orderId: cartId,
    coordinates: `orders/2/${offset}`,
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

function claim(cartId: string, settled: string): EntityClaim {
  return {
    domain: 'carts',
    entityId: cartId,
    workflowId: `CartCheckedOut:v:${cartId}@1`,
    fingerprint: `fp-${cartId}`,
    claimedAt: NOW.toISOString(),
    settled,
  };
}

/** The providers' ledger of a fulfilled cart; `undone`: cancelled afterwards and undone. */
function ledgerOf(cartId: string, undone = false): OrderEffects {
  const at = undone ? NOW.toISOString() : null;
  return {
    charges: [{ id: `ch-${cartId}`, amountMinor: 2500 }],
    refunds: undone ? [{ chargeId: `ch-${cartId}`, amountMinor: 2500 }] : [],
    emails: [{ subject: CART_MAILS.notice(cartId) }, { subject: CART_MAILS.receipt(cartId) }],
    holds: SKUS.map((sku) => ({ id: `h-${cartId}-${sku}`, sku, releasedAt: at })),
    shipments: [{ id: `s-${cartId}`, cancelledAt: at }],
  };
}

/** k1 fulfilled; k2 fulfilled, then cancelled and undone by its cancellation. */
function cleanFacts(): ReconcileFacts {
  const k1 = checkedOut('k1', 0);
  const k2 = checkedOut('k2', 1);
  const k2cancel = cancelled('k2', 2);
  return {
    events: [k1, k2, k2cancel],
    poison: [],
    ledger: [],
    workflows: [runOf(k1, 'completed'), runOf(k2, 'completed'), runOf(k2cancel, 'reversed')],
    effects: new Map([
      ['k1', ledgerOf('k1')],
      ['k2', ledgerOf('k2', true)],
    ]),
    reservations: [],
    dlq: [],
    claims: [],
    cartClaims: [claim('k1', 'completed'), claim('k2', 'reversed')],
    cartEvents: new Map([
      ['k1', ['cart:k1:announce']],
      ['k2', ['cart:k2:announce']],
    ]),
  };
}

const classify = (facts: ReconcileFacts) => classifyDiscrepancies(facts, { now: NOW });
const found = (facts: ReconcileFacts) =>
  classify(facts).map((d) => `${d.class} ${d.subject} ${d.invariant}`);

describe('reconcile: carts judged by the cart invariants', () => {
  it('reports nothing for a fulfilled cart and an undone one (and never judges them as orders)', () => {
    assert.deepEqual(classify(cleanFacts()), []);
  });

  it('a line held twice is a multiple effect, named by its invariant', () => {
    const facts = cleanFacts();
    const k1 = ledgerOf('k1');
    k1.holds!.push({ id: 'h-again', sku: 'pear', releasedAt: null });
    facts.effects.set('k1', k1);
    const all = classify(facts);
    assert.deepEqual(found(facts), ['multiple-effects-per-order k1 carts/one-hold-per-line']);
    assert.equal(
      all[0]!.detail,
      'cart: held more than once: pear ×2 (owner CartCheckedOut:v:k1@1, settled completed)',
    );
  });

  it('a cancelled cart that kept a hold, its charge or its shipment is reported per undo', () => {
    const facts = cleanFacts();
    const k2 = ledgerOf('k2', true);
    k2.holds![1] = { ...k2.holds![1]!, releasedAt: null };
    k2.refunds = [];
    facts.effects.set('k2', k2);
    assert.deepEqual(found(facts), [
      'refund-missing k2 carts/undo-missing',
      'stock-not-restored k2 carts/release-missing',
    ]);
  });

  it('a fulfilled cart missing an effect, or its event, is effect-missing', () => {
    const facts = cleanFacts();
    facts.effects.set('k1', { ...ledgerOf('k1'), shipments: [] });
    facts.cartEvents!.delete('k1');
    assert.deepEqual(found(facts), ['effect-missing k1 carts/effect-missing']);
    assert.match(classify(facts)[0]!.detail, /^cart: completed with no shipment, no CartFulfilled/);
    // The events not read: what was published is not judged.
    facts.effects.set('k1', ledgerOf('k1'));
    facts.cartEvents = undefined;
    assert.deepEqual(classify(facts), []);
  });

  it('judges by the claim once the runs are gone, and leaves a cart in flight to stuck-order', () => {
    const facts = cleanFacts();
    facts.workflows = [];
    assert.deepEqual(classify(facts), []);
    const running = cleanFacts();
    running.workflows[1] = { ...running.workflows[1]!, status: 'RUNNING' };
    running.effects.set('k2', ledgerOf('k2'));
    assert.deepEqual(classify(running), []);
  });
});
