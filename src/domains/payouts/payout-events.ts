// The payout domain's events: what a producer sends and the bridge validates. Pure (zod).
import { z } from 'zod';

export const PAYOUT_EVENT_TYPES = {
  payoutRequested: 'PayoutRequested',
  payoutCancelled: 'PayoutCancelled',
} as const;

const id = z.string().trim().min(1).max(200);

/** PayoutRequested: pay `amountMinor` to a beneficiary, then tell them. */
export const payoutRequestedSchema = z.object({
  payoutId: id,
  beneficiaryId: id,
  email: z.string().trim().min(3).max(320),
  amountMinor: z.number().int().positive().max(100_000_000),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code'),
});
export type PayoutRequestedData = z.infer<typeof payoutRequestedSchema>;

/** PayoutCancelled: reverse the payout, whether it is still running or already paid. */
export const payoutCancelledSchema = z.object({
  payoutId: id,
  reason: z.string().max(500).default('cancelled by the requester'),
});
export type PayoutCancelledData = z.infer<typeof payoutCancelledSchema>;
