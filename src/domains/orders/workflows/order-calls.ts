// The order workflows' calls that are not steps of the fulfillment table (the cancellation
// workflow's lookup and compensations), declared once and grouped by retry class. Workflow code.
import { proxyActivities } from '@temporalio/workflow';
import {
  activityOptionsOf,
  proxyForeign,
  proxyOwn,
  type WaitingRound,
} from '../../../workflows/retry-classes';
import type { OrderActivities } from '../activities';

/** Our own database: the owner lookup and the release, regular activities. */
const ownDb = proxyOwn<Pick<OrderActivities, 'releaseInventory' | 'findOrderWorkflow'>>();
/** The payment provider: the refund. */
const foreign = proxyForeign<Pick<OrderActivities, 'refundPayment'>>();

type Input<K extends keyof OrderActivities> = Parameters<OrderActivities[K]>[0];

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
  /** The refund; `round`: its waiting round through a provider outage (outage-wait.ts). */
  refund: (input: Input<'refundPayment'>, round?: WaitingRound) =>
    (round
      ? proxyActivities<Pick<OrderActivities, 'refundPayment'>>(
          activityOptionsOf('foreign', { round }),
        )
      : foreign
    ).refundPayment.executeWithOptions(
      { summary: `refund order ${input.orderId} · ${input.key}` },
      [input],
    ),
};
