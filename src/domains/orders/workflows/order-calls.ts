// The order workflows' calls that are not steps of the fulfillment table (the cancellation
// workflow's lookup and compensations), declared once and grouped by retry class. Workflow code.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import { providerTaskQueue } from '../../../workflow';
import { ORDER_PROVIDER } from './order-definitions';
import {
  activityOptionsOf,
  proxyForeign,
  proxyOwn,
  type WaitingRound,
} from '../../../workflows/retry-classes';
import type { OrderActivities } from '../activities';

/** Our own database: the owner lookup and the release, regular activities. */
const ownDb = proxyOwn<Pick<OrderActivities, 'releaseInventory' | 'findOrderWorkflow'>>();
/** The payment provider: the refund, on the provider's task queue (asked per call: see below). */
const foreign = () => proxyForeign<Pick<OrderActivities, 'refundPayment'>>().refundPayment;
/** The payment provider's task queue beside this run's (a module loads outside any run). */
const cardQueue = () => providerTaskQueue(workflowInfo().taskQueue, ORDER_PROVIDER.card);

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
        ).refundPayment
      : foreign()
    ).executeWithOptions(
      { summary: `refund order ${input.orderId} · ${input.key}`, taskQueue: cardQueue() },
      [input],
    ),
};
