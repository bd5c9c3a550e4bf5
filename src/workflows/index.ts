// The worker bundles this module for Temporal's workflow sandbox: one workflow per file,
// re-exported here.
export { smokeCheck } from './smoke-check';
export { orderFulfillment } from './order-fulfillment';
export { orderCancellation } from './order-cancellation';
