// The cart domain's workflows module: what the worker bundles (workflow code only).
export { cart } from './cart';
export { cartCancellation } from './cart-cancellation';
