import type { PayoutRequestedData } from '../../src/domains/payouts/payout-events';
import { uniqueName } from './services';

/** A fresh payout of 42.00 EUR to an unblocked beneficiary, fields overridable. */
export function newPayout(over: Partial<PayoutRequestedData> = {}): PayoutRequestedData {
  return {
    payoutId: uniqueName('payout'),
    beneficiaryId: 'ben_1',
    email: 'ben@example.com',
    amountMinor: 4200,
    currency: 'EUR',
    ...over,
  };
}
