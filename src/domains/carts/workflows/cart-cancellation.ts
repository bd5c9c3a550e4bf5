// CartCancelled → the cart's owner (its claim) undoes it: a running cart is signalled (its
// run unwinds what it did), a fulfilled one is undone here with the cart's own undo keys (the
// shipment cancelled, every charge refunded, every line released), so whichever path runs
// first each provider undoes once. Workflow code.
import { getExternalWorkflowHandle, sleep, workflowInfo } from '@temporalio/workflow';
import {
  cancelSignal,
  proxyThroughOutage,
  type ClaimActivities,
  type EventWorkflowInput,
} from '../../../workflow';
import type { CartActivities } from '../activities';
import type { CartCancelledData } from '../cart-events';
import { CARTS_DOMAIN } from './cart-names';
import { cart } from './cart';
import { CART_PROVIDER } from './cart-names';

// Outside a run's steps no operator stands by: each call waits out an outage (a provider's,
// our database's) for the worker's window instead of failing the cancellation.
const own = proxyThroughOutage<Pick<ClaimActivities, 'findClaimOwner' | 'settleClaim'>>('own');
const foreign: Pick<CartActivities, 'cancelCartShipment' | 'refundCart' | 'releaseCartLine'> = {
  cancelCartShipment: proxyThroughOutage<Pick<CartActivities, 'cancelCartShipment'>>(
    'foreign',
    undefined,
    CART_PROVIDER.shipping,
  ).cancelCartShipment,
  refundCart: proxyThroughOutage<Pick<CartActivities, 'refundCart'>>(
    'foreign',
    undefined,
    CART_PROVIDER.card,
  ).refundCart,
  releaseCartLine: proxyThroughOutage<Pick<CartActivities, 'releaseCartLine'>>(
    'foreign',
    undefined,
    CART_PROVIDER.warehouse,
  ).releaseCartLine,
};

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
  let owner = await own.findClaimOwner({ domain: CARTS_DOMAIN, entityId: cartId });
  for (let waited = 0, pause = 1000; !owner.workflowId && waited < OWNER_WAIT_MS;) {
    await sleep(pause);
    waited += pause;
    pause = Math.min(pause * 2, 30_000);
    owner = await own.findClaimOwner({ domain: CARTS_DOMAIN, entityId: cartId });
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
  await own.settleClaim({
    domain: CARTS_DOMAIN,
    entityId: cartId,
    workflowId: ownerWorkflowId,
    ...(owner.runId ? { runId: owner.runId } : {}),
    fingerprint: owner.fingerprint!,
    settled: 'reversed',
  });
  return { cartId, handledBy: 'reversed', ownerWorkflowId };
}
