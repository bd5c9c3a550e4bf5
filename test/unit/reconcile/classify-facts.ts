// The world the reconcile classification tests start from, and the runs and events they add.
import { classifyDiscrepancies } from '../../../src/reconcile/classify';
import type { ReconcileFacts, TopicEvent, WorkflowFacts } from '../../../src/reconcile/facts';

export const NOW = new Date('2026-01-01T12:00:00Z');

export function placed(
  orderId: string,
  offset: number,
  over: Partial<TopicEvent> = {},
): TopicEvent {
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

export function cancelledEvent(orderId: string, offset: number): TopicEvent {
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

export function orderRun(
  orderId: string,
  step: string,
  over: Partial<WorkflowFacts> = {},
): WorkflowFacts {
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

export function cancelRun(orderId: string): WorkflowFacts {
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

export const charge = (id: string, amountMinor = 2500) => ({ id, amountMinor });
export const refund = (chargeId: string, amountMinor = 2500) => ({ chargeId, amountMinor });

/** A clean world: o1 completed and charged once; o2 cancelled after completion and refunded. */
export function cleanFacts(): ReconcileFacts {
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

export const classify = (facts: ReconcileFacts, stuckAfterMs?: number) =>
  classifyDiscrepancies(facts, { now: NOW, ...(stuckAfterMs ? { stuckAfterMs } : {}) });
export const classesOf = (facts: ReconcileFacts) =>
  classify(facts).map((d) => `${d.class} ${d.subject}`);
