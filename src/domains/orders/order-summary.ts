import type { OrderCancelledData, OrderPlacedData } from './order-events';
import { markdownCodeWithin } from '../../events/temporal-limits';

// The Web UI renders a workflow's summary as Markdown (raw HTML and bare links included), so
// every text a producer chose is a code span (markdownCode): shown as sent, never as markup
// (the amount is a number and the currency three capital letters, both checked by the schema).
// Each span has a byte budget of its own, so the whole line stays within Temporal's 400 bytes
// and is never cut through a span.

/** Bytes of an ID's span in a summary (IDs are at most 200 characters, up to 800 bytes). */
const ID_BYTES = 120;
/** Bytes of a cancellation reason's span (reasons are at most 1000 characters). */
const REASON_BYTES = 240;

/** Minor units as a decimal amount with currency, e.g. `42.50 EUR` (2-decimal currencies). */
export function formatAmount(minor: number, currency: string): string {
  return `${(minor / 100).toFixed(2)} ${currency}`;
}

/** The one line an operator reads in the Web UI's workflow list for an order. */
export function summarizeOrderPlaced(d: OrderPlacedData): string {
  const items = d.items.reduce((s, l) => s + l.quantity, 0);
  return `Order ${markdownCodeWithin(d.orderId, ID_BYTES)} · ${items} item${items === 1 ? '' : 's'} · ${formatAmount(d.totalMinor, d.currency)} · customer ${markdownCodeWithin(d.customerId, ID_BYTES)}`;
}

export function summarizeOrderCancelled(d: OrderCancelledData): string {
  return `Cancel order ${markdownCodeWithin(d.orderId, ID_BYTES)} · ${markdownCodeWithin(d.reason, REASON_BYTES)}`;
}
