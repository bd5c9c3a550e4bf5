// CartCancelled → the cart's owner (its claim) undoes it: a running cart is signalled (its
// run unwinds what it did), a fulfilled one is undone here with the cart's own undo keys (the
// shipment cancelled, every charge refunded, every line released), so whichever path runs
// first each provider undoes once. Workflow code.
import {
  getExternalWorkflowHandle,
  proxyActivities,
  sleep,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import { cancelSignal, foreignBudget, ownBudget, type EventWorkflowInput } from '../../../workflow';
import type { CartActivities } from '../activities';
import type { CartCancelledData } from '../cart-events';
import { cart } from './cart';

/**
 * How long each call of a cancellation waits out a provider or our database being down: the
 * engine's default transient window (ORDER_TRANSIENT_RETRY_WINDOW). Outside a run's steps
 * there is no waiting round, so each call is one activity that Temporal itself retries
 * (attempts write no history), at most every 30 s, for the window: an outage delays the
 * cancellation instead of failing it with the cart still charged. A request refused for good
 * (a 4xx, a key reused) fails at once.
 */
const OUTAGE_WINDOW = '1 hour';

/** A retry class's budget, its attempts stretched over OUTAGE_WINDOW. */
function outlasting(budget: ActivityOptions): ActivityOptions {
  return {
    ...budget,
    scheduleToCloseTimeout: OUTAGE_WINDOW,
    retry: {
      initialInterval: '500 milliseconds',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      nonRetryableErrorTypes: budget.retry?.nonRetryableErrorTypes ?? [],
    },
  };
}

const own = proxyActivities<Pick<CartActivities, 'findCartOwner' | 'settleCartReversed'>>(
  outlasting(ownBudget()),
);
const foreign = proxyActivities<
  Pick<CartActivities, 'cancelCartShipment' | 'refundCart' | 'releaseCartLine'>
>(outlasting(foreignBudget()));

/**
 * How long a cancellation waits for its cart's run to claim the cart (the reason is the
 * payouts': payout-cancellation.ts). Durable timers, doubling from 1 s to 30 s.
 */
const OWNER_WAIT_MS = 10 * 60_000;

export interface CartCancellationResult {
  cartId: string;
  handledBy: 'cart-not-found' | 'already-settled' | 'signalled' | 'reversed';
  ownerWorkflowId?: string;
  settled?: string;
}

export async function cartCancellation(
  input: EventWorkflowInput<CartCancelledData>,
): Promise<CartCancellationResult> {
  const { cartId, reason } = input.data;
  let owner = await own.findCartOwner({ cartId });
  for (let waited = 0, pause = 1000; !owner.workflowId && waited < OWNER_WAIT_MS;) {
    await sleep(pause);
    waited += pause;
    pause = Math.min(pause * 2, 30_000);
    owner = await own.findCartOwner({ cartId });
  }
  if (!owner.workflowId) return { cartId, handledBy: 'cart-not-found' };
  const ownerWorkflowId = owner.workflowId;
  if (owner.settled !== undefined && owner.settled !== 'completed')
    return { cartId, handledBy: 'already-settled', ownerWorkflowId, settled: owner.settled };
  if (owner.settled === undefined) {
    try {
      await getExternalWorkflowHandle(ownerWorkflowId).signal(cancelSignal, {
        reason: `${reason} (cancellation ${workflowInfo().workflowId})`,
        by: `cancellation workflow ${workflowInfo().workflowId}`,
      });
      return { cartId, handledBy: 'signalled', ownerWorkflowId };
    } catch {
      // Closed before it settled: nothing will undo it unless we do.
    }
  }
  // The cart's own undo keys, last done first: without an item, a release frees every line.
  const keys = cart.keysOf(cartId);
  await foreign.cancelCartShipment({ key: keys.unship!, cartId });
  await foreign.refundCart({ key: keys.refund!, cartId });
  await foreign.releaseCartLine({ key: keys.release!, cartId });
  await own.settleCartReversed({
    cartId,
    workflowId: ownerWorkflowId,
    runId: owner.runId,
    fingerprint: owner.fingerprint!,
  });
  return { cartId, handledBy: 'reversed', ownerWorkflowId };
}
