import { defineDomain } from '../../index';
import { createCartActivities } from './activities';
import { cartCancelledRoute, cartCheckedOutRoute } from './routes';
import { CART_EVENTS_TOPIC, CART_FULFILLED, CARTS_DOMAIN } from './workflows/cart-names';

/**
 * The cart domain, built on onceflow's public API only (`onceflow`, `onceflow/workflow`):
 * CartCheckedOut → hold each line (a loop), charge the primary card or the backup one (a
 * caught decline), then ship and mail the notice beside the receipt and CartFulfilled (two
 * branches at once); CartCancelled → undo it.
 */
export const carts = defineDomain({
  name: CARTS_DOMAIN,
  entity: 'cart',
  routes: [cartCheckedOutRoute, cartCancelledRoute],
  workflowsPath: require.resolve('./workflows'),
  activities: createCartActivities,
  publishes: { [CART_FULFILLED]: CART_EVENTS_TOPIC },
});
