// The cart domain's routes: which event starts which workflow, and under which identity.
import { defineRoute } from '../../index';
import {
  CART_EVENT_TYPES,
  cartCancelledSchema,
  cartCheckedOutSchema,
  type CartCancelledData,
  type CartCheckedOutData,
} from './cart-events';

/** CartCheckedOut → `cart`, one run per cart version (`cartId@version`). */
export const cartCheckedOutRoute = defineRoute<CartCheckedOutData>({
  eventType: CART_EVENT_TYPES.cartCheckedOut,
  schema: cartCheckedOutSchema,
  workflow: 'cart',
  entityId: (d) => d.cartId,
  summary: (d) =>
    `Cart ${d.cartId} · ${d.lines.length} line(s) · ${(d.totalMinor / 100).toFixed(2)} ${d.currency}`,
  check: (e, d) => (d.cartId === e.aggregateId ? undefined : 'cartId must be the aggregate ID'),
});

/** CartCancelled → `cartCancellation`, one run per event. */
export const cartCancelledRoute = defineRoute<CartCancelledData>({
  eventType: CART_EVENT_TYPES.cartCancelled,
  schema: cartCancelledSchema,
  identity: 'event-id',
  workflow: 'cartCancellation',
  entityId: (d) => d.cartId,
});
