// The payout domain's activities, one per foreign call, on the engine's public API only. The
// sandbox payment provider's charge and refund endpoints stand for the transfer and its
// reversal (the payout ID is the provider's `orderId`, the beneficiary its `customerId`).
import { ApplicationFailure } from '@temporalio/common';
import { postToProvider, type ActivityDeps } from '../../index';
import { APPROVAL_ABOVE_MINOR, PAYOUT_FAILURES } from './workflows/payout-names';

export interface TransferInput {
  key: string;
  payoutId: string;
  beneficiaryId: string;
  amountMinor: number;
  currency: string;
}

export function createPayoutActivities(deps: ActivityDeps) {
  const providers = () => deps.providers ?? { url: deps.config?.providers.url ?? '' };
  return {
    /**
     * Our own rules (no I/O): beneficiaries whose ID starts with `blocked` are refused, and a
     * payout above APPROVAL_ABOVE_MINOR needs a person's approval first.
     */
    async checkBeneficiary(input: {
      key: string;
      beneficiaryId: string;
      amountMinor: number;
    }): Promise<{ needsApproval: boolean }> {
      if (/^blocked/i.test(input.beneficiaryId))
        throw ApplicationFailure.create({
          type: PAYOUT_FAILURES.beneficiaryBlocked,
          message: `beneficiary ${input.beneficiaryId} is blocked`,
          nonRetryable: true,
        });
      return { needsApproval: input.amountMinor > APPROVAL_ABOVE_MINOR };
    },
    /** The transfer, under the payout's `transfer` key. */
    async transferFunds(input: TransferInput): Promise<{ transferId: string }> {
      const res = await postToProvider(providers(), {
        path: '/v1/charges',
        key: input.key,
        body: {
          orderId: input.payoutId,
          customerId: input.beneficiaryId,
          amountMinor: input.amountMinor,
          currency: input.currency,
        },
      });
      return { transferId: String((res.body as { id?: unknown }).id) };
    },
    /** Reverses every transfer of the payout (a 404: nothing was transferred). */
    async reverseTransfer(input: {
      key: string;
      payoutId: string;
    }): Promise<{ reversed: boolean }> {
      const res = await postToProvider(providers(), {
        path: '/v1/refunds',
        key: input.key,
        body: { orderId: input.payoutId },
        accept: [404],
      });
      return { reversed: res.status !== 404 };
    },
    /** Tells the beneficiary, under the payout's `notify` key. */
    async notifyBeneficiary(input: {
      key: string;
      payoutId: string;
      to: string;
      amountMinor: number;
      currency: string;
    }): Promise<void> {
      await postToProvider(providers(), {
        path: '/v1/emails',
        key: input.key,
        body: {
          orderId: input.payoutId,
          to: input.to,
          subject: `Payout ${input.payoutId} sent`,
          body: `We sent you ${(input.amountMinor / 100).toFixed(2)} ${input.currency}.`,
        },
      });
    },
  };
}

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;
