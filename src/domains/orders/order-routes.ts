import { defineRoute } from '../../events/define-route';
import type { Envelope } from '../../events/envelope';
import {
  EVENT_TYPES,
  orderCancelledDataSchema,
  orderPlacedDataSchema,
  type OrderCancelledData,
  type OrderPlacedData,
} from './order-events';
import { summarizeOrderCancelled, summarizeOrderPlaced } from './order-summary';
import { WORKFLOW_TYPE } from './workflows/workflow-types';

/**
 * The order events are about one order, and that order is their aggregate: an event whose
 * `data.orderId` names another order would act on it under a foreign identity (two
 * aggregates charging one order), so it is refused at the door.
 */
export function checkOrderIsAggregate(
  envelope: Pick<Envelope, 'aggregateId'>,
  data: { orderId: string },
): string | undefined {
  if (data.orderId === envelope.aggregateId) return undefined;
  return `data.orderId ${JSON.stringify(data.orderId)} must equal the aggregate ID ${JSON.stringify(envelope.aggregateId)}`;
}

/** OrderPlaced starts orderFulfillment, once per order version. */
export const orderPlacedRoute = defineRoute<OrderPlacedData>({
  eventType: EVENT_TYPES.orderPlaced,
  schema: orderPlacedDataSchema,
  identity: 'aggregate-version',
  workflow: WORKFLOW_TYPE.orderFulfillment,
  summary: summarizeOrderPlaced,
  entityId: (d) => d.orderId,
  customerId: (d) => d.customerId,
  // One merchant's flash sale must not starve the others' orders (docs/production.md, "Fairness").
  tenant: { field: 'merchantId' },
  check: checkOrderIsAggregate,
});

/** OrderCancelled starts orderCancellation, which finds the order's owner. */
export const orderCancelledRoute = defineRoute<OrderCancelledData>({
  eventType: EVENT_TYPES.orderCancelled,
  schema: orderCancelledDataSchema,
  identity: 'aggregate-version',
  workflow: WORKFLOW_TYPE.orderCancellation,
  summary: summarizeOrderCancelled,
  entityId: (d) => d.orderId,
  check: checkOrderIsAggregate,
});
