/**
 * The order claim: the engine's claim (src/db/entity-claim.ts) of domain `orders`, seen with
 * the order's own words. Pure: workflow code imports its types.
 */
import type { ClaimRecord, EntityClaim } from '../../../db/entity-claim';

/** The domain name the order claims are kept under (entity_claims.domain). */
export const ORDERS_DOMAIN = 'orders';

/** How an order ended, as its claim records it. */
export const SETTLED_STATES = [
  'completed',
  'rejected',
  'declined',
  'cancelled',
  'refunded',
] as const;

/**
 * `completed`: every step ran. `rejected`: out of stock, nothing reserved or charged.
 * `declined`: the card was declined, the reservation released. `cancelled`: cancelled while it
 * ran (or before it reserved), compensated by its owner. `refunded`: cancelled after it had
 * closed, compensated by the cancellation workflow.
 */
export type SettledState = (typeof SETTLED_STATES)[number];

/** One order's claim: which orderFulfillment run owns the order, how the order ended. */
export interface OrderClaim extends ClaimRecord {
  orderId: string;
  /** Set when the owner was cancelled before it reserved anything. */
  cancelledAt?: string;
  settled?: SettledState;
  /** The last time the owner's own chain (a Temporal reset) asked again after it had settled. */
  reopenedAt?: string;
}

/** The engine's claim row of an order, as an OrderClaim. */
export function orderClaimOf(claim: EntityClaim): OrderClaim {
  const { domain, entityId, settled, ...rest } = claim;
  return {
    orderId: entityId,
    ...rest,
    ...(settled !== undefined ? { settled: settled as SettledState } : {}),
  };
}
