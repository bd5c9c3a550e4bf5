// The payout domain's names, shared by its workflows, activities and clients. Pure.
import { defineUpdate } from '@temporalio/workflow';

/** The domain (entity_claims.domain, `npx onceflow payouts …`). */
export const PAYOUTS_DOMAIN = 'payouts';
/** First part of every payout key: `payout:<payoutId>:<step>`. */
export const PAYOUT_KEY_KIND = 'payout';

/** Business failures of the payout's steps. */
export const PAYOUT_FAILURES = { beneficiaryBlocked: 'BeneficiaryBlocked' } as const;

/** A payout above this (in minor units) waits for a person's approval before it transfers. */
export const APPROVAL_ABOVE_MINOR = 1_000_000;
/** How long a payout waits for that approval; then it ends `expired`, nothing transferred. */
export const APPROVAL_WINDOW = '2 days';

/** A person's answer to a payout waiting for approval. */
export interface PayoutApproval {
  approved: boolean;
  /** Who decided (recorded in the run's history with the update). */
  by: string;
  reason?: string;
}

/**
 * Approves (or rejects) a payout waiting for approval: an update, so the sender hears back,
 * and is refused while the payout is not waiting for one.
 * `temporal workflow update execute --workflow-id <id> --name approvePayout --input '{"approved":true,"by":"ada"}'`
 */
export const approvePayoutUpdate = defineUpdate<void, [PayoutApproval]>('approvePayout');

/** Refuses an approval update without its answer: its sender hears why, the payout waits on. */
export function checkApproval(answer: PayoutApproval | undefined): void {
  if (typeof answer?.approved !== 'boolean' || typeof answer.by !== 'string' || !answer.by)
    throw new Error('an approval says {"approved": true|false, "by": "<who>"}');
}

/** The providers a payout's steps call, each on its own task queue (PROVIDER_RATE_LIMITS). */
export const PAYOUT_PROVIDER = { bank: 'bank', mail: 'mail' } as const;
