import type { OrderCancelledData, OrderPlacedData } from './order-events';

/*
 * Sample payloads of the order events, for producers that need valid orders (the order stream,
 * fuzz, tests). They live with the domain that owns the events: events/ knows no domain.
 */

/** A valid OrderPlaced payload: `lines` SKUs, totals consistent. */
export function sampleOrderPlaced(
  orderId: string,
  options: {
    customerId?: string;
    /** The merchant (the run's tenant). Default: none. */
    merchantId?: string;
    lines?: number;
    sku?: (i: number) => string;
  } = {},
): OrderPlacedData {
  const lines = options.lines ?? 2;
  const items = Array.from({ length: lines }, (_, i) => ({
    sku: options.sku?.(i) ?? `SKU-${(i % 5) + 1}`,
    quantity: 1 + (i % 3),
    unitPriceMinor: 1250 + 100 * i,
  }));
  return {
    orderId,
    customerId: options.customerId ?? `cust-${orderId}`,
    ...(options.merchantId !== undefined ? { merchantId: options.merchantId } : {}),
    email: `${orderId}@example.com`,
    currency: 'EUR',
    items,
    totalMinor: items.reduce((s, l) => s + l.quantity * l.unitPriceMinor, 0),
  };
}

export function sampleOrderCancelled(
  orderId: string,
  reason = 'customer request',
): OrderCancelledData {
  return { orderId, reason };
}
