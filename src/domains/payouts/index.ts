import { defineDomain } from '../../index';
import { createPayoutActivities } from './activities';
import { payoutCancelledRoute, payoutRequestedRoute } from './routes';
import { PAYOUTS_DOMAIN } from './workflows/payout-names';

/**
 * The payout domain, built on onceflow's public API only (`onceflow`, `onceflow/workflow`):
 * PayoutRequested → check the beneficiary, transfer, notify; PayoutCancelled → reverse.
 */
export const payouts = defineDomain({
  name: PAYOUTS_DOMAIN,
  entity: 'payout',
  routes: [payoutRequestedRoute, payoutCancelledRoute],
  workflowsPath: require.resolve('./workflows'),
  activities: createPayoutActivities,
});
