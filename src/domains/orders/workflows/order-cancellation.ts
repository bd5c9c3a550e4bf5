import {
  getExternalWorkflowHandle,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { nothingToCompensate } from '../../../db/entity-claim';
import type { EventWorkflowInput } from '../../../events/workflow-input';
import { SEARCH_ATTRIBUTE } from '../../../temporal/search-attributes';
import { waitOutTransient } from '../../../workflows/outage-wait';
import type { SettledState } from './order-claim';
import { orderCalls } from './order-calls';
import { cancelOrderSignal, stepKeys } from './order-definitions';
import type { OrderCancelledData } from '../order-events';

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
   * and this run compensated; `order-not-found`: no OrderPlaced was ever started for it;
   * `already-settled`: the order's claim says there is nothing left to undo (cancelled,
   * refunded, declined or rejected): e.g. this OrderCancelled read again after the ledger and
   * Temporal forgot the first one. Nothing is signalled, refunded or released.
   */
  handledBy: 'signalled' | 'compensated' | 'order-not-found' | 'already-settled';
  orderWorkflowId?: string;
  /** `already-settled`: how the order had ended. */
  settled?: SettledState;
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
 * compensates at its next step boundary. If the owner has already closed, the signal fails
 * (or, when its claim says it completed, is not sent) and this workflow compensates itself
 * with the order's own derived keys, so the refund and the release act once however many
 * cancellations arrive and whichever path runs, and settles the claim `refunded`. A claim
 * that already says cancelled, refunded, declined or rejected ends it at once: a replayed
 * OrderCancelled refunds nothing a second time.
 */
export async function orderCancellation(
  input: OrderCancellationInput,
): Promise<OrderCancellationResult> {
  const { orderId } = input.data;
  const setStep = (step: string) =>
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE.step, value: step }]);
  upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE.entityId, value: orderId }]);
  const lookUp = () => orderCalls.findOrderWorkflow({ orderId });
  const found = input.orderWorkflowId ? { workflowId: input.orderWorkflowId } : await lookUp();
  let orderWorkflowId = found.workflowId;
  if (!orderWorkflowId) {
    setStep('order-not-found');
    return { orderId, handledBy: 'order-not-found' };
  }
  // The claim is the lasting truth: a result without `settled` (an older activity, or an
  // order still running) takes the path below, as runs recorded before it did.
  const settled = 'settled' in found ? found.settled : undefined;
  if (nothingToCompensate(settled)) {
    setStep('duplicate');
    return { orderId, handledBy: 'already-settled', orderWorkflowId, settled };
  }
  const reason = `${input.data.reason} (cancellation ${workflowInfo().workflowId})`;
  // A completed order has closed: signalling would reach nobody, or a later run of its
  // workflow ID that does not own it. Otherwise twice at most: a run found in the ledger
  // before the order was claimed may have ended as a duplicate since, and the claim then
  // names the real owner.
  for (let attempt = 0; settled !== 'completed' && attempt < 2; attempt++) {
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
    const owner = (await lookUp()).workflowId;
    if (!owner || owner === orderWorkflowId) break;
    orderWorkflowId = owner;
  }
  setStep('compensating');
  const keys = stepKeys(orderId);
  // A provider outage must not fail the cancellation: the refund waits it out (same key).
  const refund = await waitOutTransient((round) =>
    orderCalls.refund({ key: keys.refund, orderId }, round),
  );
  // The release settles the owner's claim `refunded` in its own transaction: no extra call.
  const ownerRunId = 'runId' in found ? found.runId : undefined;
  const release = await orderCalls.release({
    key: keys.release,
    reservationKey: keys.reserve,
    ownerWorkflowId: orderWorkflowId,
    settle: { settled: 'refunded', ...(ownerRunId !== undefined ? { runId: ownerRunId } : {}) },
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
