import type { OrderCancelledData, OrderPlacedData } from './order-events';

/** Minor units as a decimal amount with currency, e.g. `42.50 EUR` (2-decimal currencies). */
export function formatAmount(minor: number, currency: string): string {
  return `${(minor / 100).toFixed(2)} ${currency}`;
}

/** The one line an operator reads in the Web UI's workflow list for an order. */
export function summarizeOrderPlaced(d: OrderPlacedData): string {
  const items = d.items.reduce((s, l) => s + l.quantity, 0);
  return `Order ${d.orderId} · ${items} item${items === 1 ? '' : 's'} · ${formatAmount(d.totalMinor, d.currency)} · customer ${d.customerId}`;
}

export function summarizeOrderCancelled(d: OrderCancelledData): string {
  return `Cancel order ${d.orderId} · ${d.reason}`;
}
