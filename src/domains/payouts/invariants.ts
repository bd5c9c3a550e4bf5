/**
 * The payout domain's business invariants, stated once. The demo (harness/pipeline/invariants.ts),
 * chaos and reconcile (src/reconcile/classify-payouts.ts) read their evidence their own way,
 * from the effects' own records (the sandbox provider's transfers, reversals and notices, the
 * runs' endings, the claims), never from what a run says it did, and judge it here. Pure.
 */

/** How one payout's effects look, and how the payout ended as far as the caller knows. */
export interface PayoutEvidence {
  /**
   * How the payout ended: `completed`, `refused` (blocked beneficiary), `rejected` or
   * `expired` (no approval), or `cancelled` (reversed). Undefined: not known, so its net transfer is not judged.
   */
  outcome?: string;
  /** Cancelled (a PayoutCancelled event, an operator, or its claim settled so). */
  cancelled: boolean;
  /** The payout's amount in minor units, when known. */
  amountMinor?: number;
  /** The provider's transfers of this payout. */
  transfers: ReadonlyArray<{ id?: string; amountMinor: number }>;
  /** The provider's reversals of this payout (`chargeId`: the transfer reversed). */
  reversals: ReadonlyArray<{ chargeId?: string; amountMinor: number }>;
  /** Notices sent to the beneficiary. */
  notices: number;
  /**
   * The closed payout runs of this payout and how each ended (their step), when the caller
   * reads them; undefined: not judged.
   */
  runs?: ReadonlyArray<{ workflowId: string; step?: string }>;
}

/** The invariants: each breach names one. */
export type PayoutInvariant =
  /** Transferred at most once (a second transfer, reversed or not, is a second payment). */
  | 'one-transfer'
  /** Reversed at most once. */
  | 'one-reversal'
  /** Never reversed more than was transferred, nor a transfer that does not exist. */
  | 'over-reversed'
  /** A cancelled payout that was transferred is reversed. */
  | 'reversal-missing'
  /** A payout that stands moved exactly its amount; one refused or cancelled, nothing. */
  | 'net-transfer'
  /** The beneficiary is told at most once. */
  | 'one-notice'
  /** Only the payout's owner acts: every other run of it ends duplicate (or conflict). */
  | 'duplicate-acted';

export interface PayoutBreach {
  invariant: PayoutInvariant;
  detail: string;
}

/** Endings of a run that found the payout owned by another run: it acted on nothing. */
export const NOT_OWNER_ENDINGS: ReadonlySet<string> = new Set(['duplicate', 'payout_conflict']);

/** Outcomes after which nothing may stay transferred. */
export const UNWOUND_PAYOUT_OUTCOMES: ReadonlySet<string> = new Set([
  'refused',
  'rejected',
  'expired',
  'cancelled',
]);

/**
 * The outcome a payout claim's settlement stands for: `reversed` (a cancellation reversed it
 * after it had closed) and `unwound` (a second run reversed it for its closed owner) are
 * cancellations; the rest are the saga's own endings.
 */
export function payoutOutcomeOfSettlement(settled: string): string {
  return settled === 'reversed' || settled === 'unwound' ? 'cancelled' : settled;
}

/** A payout stands when it completed and was not cancelled: it keeps its transfer. */
export function payoutStands(e: Pick<PayoutEvidence, 'outcome' | 'cancelled'>): boolean {
  return e.outcome === 'completed' && !e.cancelled;
}

/** Every invariant the evidence breaks (empty: the payout is sound). */
export function judgePayout(e: PayoutEvidence): PayoutBreach[] {
  const out: PayoutBreach[] = [];
  const breach = (invariant: PayoutInvariant, detail: string) => out.push({ invariant, detail });
  const transferred = e.transfers.reduce((s, t) => s + t.amountMinor, 0);
  const reversed = e.reversals.reduce((s, r) => s + r.amountMinor, 0);
  const net = transferred - reversed;

  if (e.transfers.length > 1) breach('one-transfer', `${e.transfers.length} transfers`);
  if (e.reversals.length > 1) breach('one-reversal', `${e.reversals.length} reversals`);
  const ids = new Set(e.transfers.map((t) => t.id));
  const stray = e.reversals.filter((r) => r.chargeId !== undefined && !ids.has(r.chargeId));
  if (reversed > transferred || stray.length > 0)
    breach(
      'over-reversed',
      stray.length > 0
        ? `reversal of ${stray.map((r) => r.chargeId).join(', ')}, which no transfer of this payout is`
        : `reversed ${reversed}, transferred ${transferred}`,
    );
  if (e.notices > 1) breach('one-notice', `${e.notices} notices`);
  const acting = (e.runs ?? []).filter(
    (r) => r.step !== undefined && !NOT_OWNER_ENDINGS.has(r.step),
  );
  if (acting.length > 1)
    breach(
      'duplicate-acted',
      `${acting.length} runs acted: ${acting.map((r) => `${r.workflowId} (${r.step})`).join(', ')}`,
    );

  if (payoutStands(e)) {
    if (e.amountMinor !== undefined && net !== e.amountMinor)
      breach('net-transfer', `completed with net transfer ${net} ≠ amount ${e.amountMinor}`);
  } else if (e.cancelled) {
    if (net > 0) breach('reversal-missing', `cancelled but net transfer is ${net}`);
  } else if (e.outcome !== undefined && net !== 0) {
    breach('net-transfer', `${e.outcome} with net transfer ${net} ≠ 0`);
  }
  return out;
}
