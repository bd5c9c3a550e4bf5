// The payout domain's names, shared by its workflows and activities. Pure.

/** The domain (entity_claims.domain, `npx onceflow payouts …`). */
export const PAYOUTS_DOMAIN = 'payouts';
/** First part of every payout key: `payout:<payoutId>:<step>`. */
export const PAYOUT_KEY_KIND = 'payout';

/** Business failures of the payout's steps. */
export const PAYOUT_FAILURES = { beneficiaryBlocked: 'BeneficiaryBlocked' } as const;
