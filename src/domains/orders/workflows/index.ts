// The order domain's workflows, as the worker bundles them for Temporal's sandbox: one
// workflow per file, re-exported here. Workflow code.
export { orderFulfillment } from './order-fulfillment';
export { orderCancellation } from './order-cancellation';
