import {
  getExternalWorkflowHandle,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { OrderCancelledData } from '../events/order-events';
import type { EventWorkflowInput } from '../events/workflow-input';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import { orderActivities } from './order-activities';
import { cancelOrderSignal, stepKeys } from './order-definitions';

export interface OrderCancellationInput extends EventWorkflowInput<OrderCancelledData> {
  /**
   * Workflow ID of the order's orderFulfillment run. Default: looked up in the bridge's ledger
   * (the first OrderPlaced row of the order).
   */
  orderWorkflowId?: string;
}

export interface OrderCancellationResult {
  orderId: string;
  /**
   * `signalled`: the running order workflow compensates; `compensated`: the order had closed
   * and this run compensated; `order-not-found`: no OrderPlaced was ever started for it.
   */
  handledBy: 'signalled' | 'compensated' | 'order-not-found';
  orderWorkflowId?: string;
  refunded?: boolean;
}

/**
 * OrderCancelled, deduplicated like every event by its own workflow ID. Signals the running
 * order workflow, which compensates at its next step boundary. If the order has already
 * closed (completed, declined, rejected), the signal fails and this workflow compensates
 * itself with the order's own derived keys, so the refund and the release act once however
 * many cancellations arrive and whichever path runs.
 */
export async function orderCancellation(
  input: OrderCancellationInput,
): Promise<OrderCancellationResult> {
  const { orderId } = input.data;
  const setStep = (step: string) =>
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE.orderStep, value: step }]);
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE.orderId, value: orderId }]);
  const orderWorkflowId =
    input.orderWorkflowId ?? (await orderActivities.findOrderWorkflow({ orderId })).workflowId;
  if (!orderWorkflowId) {
    setStep('order-not-found');
    return { orderId, handledBy: 'order-not-found' };
  }
  const reason = `${input.data.reason} (cancellation ${workflowInfo().workflowId})`;
  try {
    await getExternalWorkflowHandle(orderWorkflowId).signal(cancelOrderSignal, { reason });
    setStep('signalled');
    return { orderId, handledBy: 'signalled', orderWorkflowId };
  } catch {
    // Not running (closed, or its ID is wrong): nothing will compensate unless we do.
  }
  setStep('compensating');
  const keys = stepKeys(orderWorkflowId);
  const refund = await orderActivities.refund({ key: keys.refund, orderId });
  await orderActivities.release({ key: keys.release, reservationKey: keys.reserve });
  setStep('cancelled');
  return { orderId, handledBy: 'compensated', orderWorkflowId, refunded: refund.refunded };
}
