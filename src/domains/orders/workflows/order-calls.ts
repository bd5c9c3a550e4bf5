// The order workflows' calls that are not steps of the fulfillment table (the cancellation
// workflow's lookup and compensations), declared once and grouped by retry class, and the
// replay switches of order histories recorded by older versions. Workflow code.
import { patched } from '@temporalio/workflow';
import { proxyForeign, proxyOwn } from '../../../workflows/retry-classes';
import type { OrderActivities } from '../activities';

/** Our own database: the owner lookup and the release, regular activities. */
const ownDb = proxyOwn<Pick<OrderActivities, 'releaseInventory' | 'findOrderWorkflow'>>();
/** The payment provider: the refund. */
const foreign = proxyForeign<Pick<OrderActivities, 'refundPayment'>>();

type Input<K extends keyof OrderActivities> = Parameters<OrderActivities[K]>[0];

/**
 * Runs recorded before OrderStep was upserted only where queried wrote it on every step
 * (received, reserving, charging, emailing...); they replay that way.
 */
export const QUERIED_STEPS_PATCH = 'order-step-upserted-only-where-queried';
/**
 * Histories recorded before transient waits parked on every failure, without a memo: they
 * replay on that path (patched() is false there), new runs wait and keep the memo.
 */
export const TRANSIENT_WAITS_PATCH = 'transient-waits-and-attention-memo';
/** Runs recorded before the reservation was a local activity scheduled it as a regular one. */
export const LOCAL_RESERVE_PATCH = 'reserve-as-local-activity';
/** Runs recorded before the owner settled its claim end without that local activity. */
export const SETTLE_CLAIM_PATCH = 'settle-order-claim';

/** Runs recorded before orders published OrderFulfilled end without the publishing step. */
export const PUBLISH_FULFILLED_PATCH = 'order-publishes-fulfilled';

/** The replay switches, asked where the runs of each version asked them. */
export const orderCompat = {
  publishesFulfilled: () => patched(PUBLISH_FULFILLED_PATCH),
  onlyQueriedSteps: () => patched(QUERIED_STEPS_PATCH),
  transientWaits: () => patched(TRANSIENT_WAITS_PATCH),
  localReserve: () => patched(LOCAL_RESERVE_PATCH),
  settles: () => patched(SETTLE_CLAIM_PATCH),
};

/** The cancellation workflow's calls, each with a summary naming the order and the key. */
export const orderCalls = {
  release: (input: Input<'releaseInventory'>) =>
    ownDb.releaseInventory.executeWithOptions(
      { summary: `release ${input.reservationKey} · ${input.key}` },
      [input],
    ),
  findOrderWorkflow: (input: Input<'findOrderWorkflow'>) =>
    ownDb.findOrderWorkflow.executeWithOptions(
      { summary: `find the owner of order ${input.orderId}` },
      [input],
    ),
  refund: (input: Input<'refundPayment'>) =>
    foreign.refundPayment.executeWithOptions(
      { summary: `refund order ${input.orderId} · ${input.key}` },
      [input],
    ),
};
