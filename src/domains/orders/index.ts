import { defineDomain } from '../../engine/define-domain';
import { createOrderActivities } from './activities';
import { orderCancelledRoute, orderPlacedRoute } from './order-routes';
import {
  cancelOrderSignal,
  ORDER_FULFILLED,
  orderStatusQuery,
} from './workflows/order-definitions';

/**
 * The order domain, onceflow's first user of its own engine: OrderPlaced → claim and reserve,
 * charge, email (src/domains/orders/order-fulfillment.ts), OrderCancelled → compensate
 * through the owner (order-cancellation.ts). docs/orders.md describes it.
 */
export const orders = defineDomain({
  name: 'orders',
  entity: 'order',
  routes: [orderPlacedRoute, orderCancelledRoute],
  workflowsPath: require.resolve('./workflows'),
  activities: createOrderActivities,
  // Its saga keeps the names its histories were recorded with (the ops CLI signals them).
  ops: { cancelSignal: cancelOrderSignal.name, statusQuery: orderStatusQuery.name },
  publishes: { [ORDER_FULFILLED]: (config) => config.orders.eventsTopic },
});
