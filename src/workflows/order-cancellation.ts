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
import { retryTransient } from './order-step-runner';

export interface OrderCancellationInput extends EventWorkflowInput<OrderCancelledData> {
  /**
   * Workflow ID of the order's owning orderFulfillment run. Default: the order's owner from
   * findOrderOwner (its claim, else the first OrderPlaced row of the bridge's ledger).
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
  /** `compensated`: the charges this run refunded (every charge the order had, normally one). */
  refundedChargeIds?: string[];
  /** `compensated`: charges that had been refunded before this run. */
  alreadyRefundedChargeIds?: string[];
  /** `compensated`: whether this run returned the reservation's stock. */
  released?: boolean;
}

/**
 * OrderCancelled, deduplicated like every event by its own workflow ID. Signals the order's
 * owner (found through the order claim, which outlives the bridge's ledger), which
 * compensates at its next step boundary. If the owner has already closed (completed,
 * declined, rejected), the signal fails and this workflow compensates itself with the
 * order's own derived keys, so the refund and the release act once however many
 * cancellations arrive and whichever path runs.
 */
export async function orderCancellation(
  input: OrderCancellationInput,
): Promise<OrderCancellationResult> {
  const { orderId } = input.data;
  const setStep = (step: string) =>
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE.orderStep, value: step }]);
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE.orderId, value: orderId }]);
  const lookUp = async () => (await orderActivities.findOrderWorkflow({ orderId })).workflowId;
  let orderWorkflowId = input.orderWorkflowId ?? (await lookUp());
  if (!orderWorkflowId) {
    setStep('order-not-found');
    return { orderId, handledBy: 'order-not-found' };
  }
  const reason = `${input.data.reason} (cancellation ${workflowInfo().workflowId})`;
  // Twice at most: a run found in the ledger before the order was claimed may have ended as
  // a duplicate since, and the claim then names the real owner.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await getExternalWorkflowHandle(orderWorkflowId).signal(cancelOrderSignal, {
        reason,
        by: `cancellation workflow ${workflowInfo().workflowId}`,
      });
      setStep('signalled');
      return { orderId, handledBy: 'signalled', orderWorkflowId };
    } catch {
      // Not running (closed, or its ID is wrong): nothing will compensate unless we do.
    }
    if (input.orderWorkflowId) break;
    const owner = await lookUp();
    if (!owner || owner === orderWorkflowId) break;
    orderWorkflowId = owner;
  }
  setStep('compensating');
  const keys = stepKeys(orderId);
  // A provider outage must not fail the cancellation: the refund waits it out (same key).
  const refund = await retryTransient(() => orderActivities.refund({ key: keys.refund, orderId }));
  const release = await orderActivities.release({
    key: keys.release,
    reservationKey: keys.reserve,
    ownerWorkflowId: orderWorkflowId,
  });
  setStep('cancelled');
  return {
    orderId,
    handledBy: 'compensated',
    orderWorkflowId,
    refunded: refund.refunded,
    refundedChargeIds: refund.chargeIds,
    alreadyRefundedChargeIds: refund.alreadyRefundedChargeIds,
    released: release.released && !release.repeated,
  };
}
