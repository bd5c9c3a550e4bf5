/**
 * The cart domain's business invariants, stated once. The demo (harness/pipeline/invariants.ts),
 * chaos and reconcile (src/reconcile/classify-carts.ts) read their evidence their own way, from
 * the effects' own records (the sandbox warehouse's holds, the payment provider's charges and
 * refunds, the carrier's shipments, the mails, the published events, the runs' endings, the
 * claims), never from what a run says it did, and judge it here. Pure.
 */
import { cartMailOf } from './workflows/cart-names';

/** How one cart's effects look, and how the cart ended as far as the caller knows. */
export interface CartEvidence {
  /**
   * How the cart ended: `completed`, `declined` (both cards, or the primary without a backup),
   * `cancelled`, or `failed` (its body threw). Undefined: not known, so what it keeps is not
   * judged.
   */
  outcome?: string;
  /** Cancelled (a CartCancelled event, an operator, Temporal, or its claim settled so). */
  cancelled: boolean;
  /** The cart's lines (their SKUs), when known. */
  lines?: ReadonlyArray<{ sku: string }>;
  /** The cart's total in minor units, when known. */
  totalMinor?: number;
  /** The warehouse's holds under the cart's ID, each released or not. */
  holds: ReadonlyArray<{ id?: string; sku: string; released: boolean }>;
  charges: ReadonlyArray<{ id?: string; amountMinor: number }>;
  refunds: ReadonlyArray<{ chargeId?: string; amountMinor: number }>;
  /** The carrier's shipments under the cart's ID, each cancelled or not. */
  shipments: ReadonlyArray<{ id?: string; cancelled: boolean }>;
  /** The subjects of the mails sent under the cart's ID. */
  mails: readonly string[];
  /** The distinct event IDs of the CartFulfilled events published for it; undefined: not read. */
  published?: readonly string[];
  /**
   * The closed cart runs of this cart and how each ended (their step), when the caller reads
   * them; undefined: not judged.
   */
  runs?: ReadonlyArray<{ workflowId: string; step?: string }>;
}

/** The invariants, in the order reports list them: each breach names one. */
export const CART_INVARIANTS = [
  /** Each line held at most once, and only lines of the cart. */
  'one-hold-per-line',
  /** At most one charge: the primary card or the backup, never both (refunded or not). */
  'one-charge',
  /** Each charge refunded at most once, never a charge of another cart, never above it. */
  'one-refund',
  /** At most one shipment. */
  'one-shipment',
  /** At most one shipping notice and one receipt. */
  'one-mail',
  /** At most one CartFulfilled (one event ID; its records may repeat). */
  'one-event',
  /** Only the cart's owner acts: every other run of it ends duplicate (or conflict). */
  'duplicate-acted',
  /** A cart that stands is charged exactly its total; one unwound, nothing. */
  'net-charge',
  /** A cart that stands holds every line, one shipment, both mails and its event. */
  'effect-missing',
  /** A cart unwound released every hold it made. */
  'release-missing',
  /** A cart unwound refunded every charge and cancelled every shipment. */
  'undo-missing',
] as const;
export type CartInvariant = (typeof CART_INVARIANTS)[number];

export interface CartBreach {
  invariant: CartInvariant;
  detail: string;
}

/** Endings of a run that found the cart owned by another run: it acted on nothing. */
export const NOT_OWNER_ENDINGS: ReadonlySet<string> = new Set(['duplicate', 'cart_conflict']);

/** Outcomes after which nothing may stay held, charged or shipped. */
export const UNWOUND_CART_OUTCOMES: ReadonlySet<string> = new Set([
  'declined',
  'cancelled',
  'failed',
]);

/**
 * The outcome a cart claim's settlement stands for: `reversed` (a cancellation undid it after
 * it had closed) and `unwound` (a second run undid it for its closed owner) are cancellations;
 * the rest are the run's own endings.
 */
export function cartOutcomeOfSettlement(settled: string): string {
  return settled === 'reversed' || settled === 'unwound' ? 'cancelled' : settled;
}

/** A cart stands when it completed and was not cancelled: it keeps its effects. */
export function cartStands(e: Pick<CartEvidence, 'outcome' | 'cancelled'>): boolean {
  return e.outcome === 'completed' && !e.cancelled;
}

/** How many of each value, for the ones seen more than once: `apple ×2`. */
function repeats(values: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].filter(([, n]) => n > 1).map(([v, n]) => `${v} ×${n}`);
}

/** The breaches of the effects counted more than once (whatever the outcome). */
function judgeAtMostOnce(e: CartEvidence, breach: (i: CartInvariant, d: string) => void): void {
  const doubled = repeats(e.holds.map((h) => h.sku));
  if (doubled.length > 0) breach('one-hold-per-line', `held more than once: ${doubled.join(', ')}`);
  if (e.lines) {
    const skus = new Set(e.lines.map((l) => l.sku));
    const stray = e.holds.filter((h) => !skus.has(h.sku)).map((h) => h.sku);
    if (stray.length > 0) breach('one-hold-per-line', `held ${stray.join(', ')}, not a line`);
  }
  if (e.charges.length > 1) breach('one-charge', `${e.charges.length} charges`);
  const charged = new Map(e.charges.map((c) => [c.id, c.amountMinor]));
  const refundedTwice = repeats(e.refunds.flatMap((r) => (r.chargeId ? [r.chargeId] : [])));
  if (refundedTwice.length > 0)
    breach('one-refund', `refunded more than once: ${refundedTwice.join(', ')}`);
  const stray = e.refunds.filter((r) => r.chargeId !== undefined && !charged.has(r.chargeId));
  if (stray.length > 0)
    breach('one-refund', `refund of ${stray.map((r) => r.chargeId).join(', ')}, no charge of it`);
  const above = e.refunds.filter(
    (r) => r.chargeId !== undefined && r.amountMinor > (charged.get(r.chargeId) ?? Infinity),
  );
  if (above.length > 0) breach('one-refund', `refunded above the charge of ${above[0]!.chargeId}`);
  if (e.shipments.length > 1) breach('one-shipment', `${e.shipments.length} shipments`);
  const mails = e.mails.map((s) => cartMailOf(s) ?? s);
  const doubledMails = repeats(mails);
  if (doubledMails.length > 0)
    breach('one-mail', `mailed more than once: ${doubledMails.join(', ')}`);
  if (e.published && e.published.length > 1)
    breach('one-event', `${e.published.length} CartFulfilled events: ${e.published.join(', ')}`);
  const acting = (e.runs ?? []).filter(
    (r) => r.step !== undefined && !NOT_OWNER_ENDINGS.has(r.step),
  );
  if (acting.length > 1)
    breach(
      'duplicate-acted',
      `${acting.length} runs acted: ${acting.map((r) => `${r.workflowId} (${r.step})`).join(', ')}`,
    );
}

/** What a cart that stands must have: every line held, one shipment, both mails, its event. */
function judgeStanding(
  e: CartEvidence,
  net: number,
  breach: (i: CartInvariant, d: string) => void,
): void {
  if (e.totalMinor !== undefined && net !== e.totalMinor)
    breach('net-charge', `completed with net charge ${net} ≠ total ${e.totalMinor}`);
  const missing: string[] = [];
  const held = new Set(e.holds.filter((h) => !h.released).map((h) => h.sku));
  const unheld = (e.lines ?? []).filter((l) => !held.has(l.sku)).map((l) => l.sku);
  if (unheld.length > 0) missing.push(`line(s) ${unheld.join(', ')} not held`);
  if (!e.shipments.some((s) => !s.cancelled)) missing.push('no shipment');
  const mails = new Set(e.mails.map(cartMailOf));
  for (const mail of ['notice', 'receipt'] as const)
    if (!mails.has(mail)) missing.push(`no ${mail}`);
  if (e.published && e.published.length === 0) missing.push('no CartFulfilled');
  if (missing.length > 0) breach('effect-missing', `completed with ${missing.join(', ')}`);
}

/** What a cart unwound must have undone: every hold released, every charge and shipment. */
function judgeUnwound(
  e: CartEvidence,
  net: number,
  breach: (i: CartInvariant, d: string) => void,
): void {
  const why = e.cancelled ? 'cancelled' : e.outcome!;
  const kept = e.holds.filter((h) => !h.released).map((h) => h.sku);
  if (kept.length > 0) breach('release-missing', `${why} but ${kept.join(', ')} still held`);
  const undone: string[] = [];
  if (net > 0) undone.push(`net charge is ${net}`);
  const shipped = e.shipments.filter((s) => !s.cancelled).length;
  if (shipped > 0) undone.push(`${shipped} shipment(s) not cancelled`);
  if (undone.length > 0) breach('undo-missing', `${why} but ${undone.join(', ')}`);
  if (net < 0) breach('net-charge', `${why} with net charge ${net} ≠ 0`);
}

/** Every invariant the evidence breaks (empty: the cart is sound). */
export function judgeCart(e: CartEvidence): CartBreach[] {
  const out: CartBreach[] = [];
  const breach = (invariant: CartInvariant, detail: string) => out.push({ invariant, detail });
  const charged = e.charges.reduce((s, c) => s + c.amountMinor, 0);
  const refunded = e.refunds.reduce((s, r) => s + r.amountMinor, 0);
  const net = charged - refunded;
  judgeAtMostOnce(e, breach);
  if (cartStands(e)) judgeStanding(e, net, breach);
  else if (e.cancelled || UNWOUND_CART_OUTCOMES.has(e.outcome ?? '')) judgeUnwound(e, net, breach);
  return out;
}
