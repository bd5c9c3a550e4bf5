// The payout domain's workflows module: what the worker bundles (workflow code only).
export { payout } from './payout';
export { payoutCancellation } from './payout-cancellation';
