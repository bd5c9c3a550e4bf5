// PayoutRequested → check the beneficiary → transfer → notify, as a saga on onceflow/workflow
// only: the engine claims the payout before the first step (a re-send ends `duplicate`) and
// settles it at the end; a blocked beneficiary ends it `refused`; a cancellation (signal)
// reverses the transfer (pushed before the transfer runs: its outcome may be unknown).
// Workflow code.
import { defineSaga, type EventWorkflowInput, type SagaStep } from '../../../workflow';
import type { PayoutActivities } from '../activities';
import type { PayoutRequestedData } from '../payout-events';
import { PAYOUT_FAILURES, PAYOUT_KEY_KIND, PAYOUTS_DOMAIN } from './payout-names';

type PayoutStep = SagaStep<PayoutRequestedData, PayoutActivities>;

const check: PayoutStep = {
  name: 'check',
  activity: 'checkBeneficiary',
  retry: 'own',
  input: ({ data, key }) => ({ key, beneficiaryId: data.beneficiaryId }),
  failures: { [PAYOUT_FAILURES.beneficiaryBlocked]: 'refused' },
};

const transfer: PayoutStep = {
  name: 'transfer',
  running: 'transferring',
  activity: 'transferFunds',
  retry: 'foreign',
  input: ({ data, key }) => ({
    key,
    payoutId: data.payoutId,
    beneficiaryId: data.beneficiaryId,
    amountMinor: data.amountMinor,
    currency: data.currency,
  }),
  compensate: {
    name: 'reverse',
    activity: 'reverseTransfer',
    retry: 'foreign',
    input: ({ data, key }) => ({ key, payoutId: data.payoutId }),
  },
};

const notify: PayoutStep = {
  name: 'notify',
  running: 'notifying',
  activity: 'notifyBeneficiary',
  retry: 'foreign',
  input: ({ data, key }) => ({
    key,
    payoutId: data.payoutId,
    to: data.email,
    amountMinor: data.amountMinor,
    currency: data.currency,
  }),
};

const saga = defineSaga<PayoutRequestedData, PayoutActivities>({
  domain: PAYOUTS_DOMAIN,
  entity: { kind: PAYOUT_KEY_KIND, id: (d) => d.payoutId, customerId: (d) => d.beneficiaryId },
  steps: [check, transfer, notify],
  counterpart: { transfer: 'the payment provider', notify: 'the mail API' },
});

/** The payout workflow: one payout, one transfer, one notice. */
export async function payout(input: EventWorkflowInput<PayoutRequestedData>) {
  return saga.run(input);
}
