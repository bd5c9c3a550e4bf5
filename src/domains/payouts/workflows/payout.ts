// PayoutRequested → check the beneficiary → (above an amount: wait for a person's approval,
// at most two days) → transfer → notify, as plain code on onceflow/workflow only. The engine
// claims the payout before the body (a re-send ends `duplicate`) and settles it at the end; a
// blocked beneficiary ends it `refused`, a rejection `rejected`, no answer in time `expired`;
// a cancellation (signal, or Temporal's own) reverses the transfer (pushed before the transfer
// runs: its outcome may be unknown). Workflow code.
import { defineWorkflow } from '../../../workflow';
import type { PayoutActivities } from '../activities';
import type { PayoutRequestedData } from '../payout-events';
import {
  APPROVAL_WINDOW,
  approvePayoutUpdate,
  checkApproval,
  PAYOUT_FAILURES,
  PAYOUT_KEY_KIND,
  PAYOUT_PROVIDER,
  PAYOUTS_DOMAIN,
} from './payout-names';

/** The payout workflow: one payout, one transfer, one notice. */
export const payout = defineWorkflow<PayoutRequestedData, PayoutActivities>()({
  name: 'payout',
  domain: PAYOUTS_DOMAIN,
  entity: { kind: PAYOUT_KEY_KIND, id: (d) => d.payoutId, customerId: (d) => d.beneficiaryId },
  steps: {
    check: {
      activity: 'checkBeneficiary',
      retry: 'own',
      failures: { [PAYOUT_FAILURES.beneficiaryBlocked]: 'refused' },
    },
    transfer: {
      activity: 'transferFunds',
      retry: 'foreign',
      provider: PAYOUT_PROVIDER.bank,
      running: 'transferring',
      // By payout, never by transfer ID: PayoutCancelled reverses a paid payout with the same
      // request under the same key, so whichever path runs first the provider reverses once.
      compensate: {
        name: 'reverse',
        activity: 'reverseTransfer',
        retry: 'foreign',
        provider: PAYOUT_PROVIDER.bank,
        input: ({ data }) => ({ payoutId: data.payoutId }),
      },
    },
    notify: {
      activity: 'notifyBeneficiary',
      retry: 'foreign',
      running: 'notifying',
      provider: PAYOUT_PROVIDER.mail,
    },
  },
  outcomes: ['expired', 'rejected'],
  counterpart: { transfer: 'the payment provider', notify: 'the mail API' },
  async run({ data, steps, receive, fail }) {
    const { needsApproval } = await steps.check({
      beneficiaryId: data.beneficiaryId,
      amountMinor: data.amountMinor,
    });
    if (needsApproval) {
      const answer = await receive('approval', approvePayoutUpdate, {
        timeout: APPROVAL_WINDOW,
        validate: checkApproval,
      });
      if (answer.timedOut) return fail('expired', `no approval within ${APPROVAL_WINDOW}`);
      if (!answer.value.approved)
        return fail('rejected', `rejected by ${answer.value.by}: ${answer.value.reason ?? ''}`);
    }
    const { transferId } = await steps.transfer({
      payoutId: data.payoutId,
      beneficiaryId: data.beneficiaryId,
      amountMinor: data.amountMinor,
      currency: data.currency,
    });
    await steps.notify({
      payoutId: data.payoutId,
      to: data.email,
      amountMinor: data.amountMinor,
      currency: data.currency,
    });
    return { transferId };
  },
});
