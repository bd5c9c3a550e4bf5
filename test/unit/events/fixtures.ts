import type { IHeaders } from 'kafkajs';
import type { RawMessage } from '../../../src/events/envelope';

/** A contract-conforming OrderPlaced payload (totalMinor = 2×500 + 1×250). */
export function orderPlacedData(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    orderId: 'order-123',
    customerId: 'cust-9',
    email: 'ada@example.com',
    currency: 'EUR',
    items: [
      { sku: 'sku-a', quantity: 2, unitPriceMinor: 500 },
      { sku: 'sku-b', quantity: 1, unitPriceMinor: 250 },
    ],
    totalMinor: 1250,
    ...overrides,
  };
}

export const EVENT_ID = '6f1c1f0e-8a3e-4c55-9d0c-3f1b2a4c5d6e';

/** Standard headers of an OrderPlaced event, as kafkajs delivers them (Buffers). */
export function headersOf(fields: Record<string, string | undefined> = {}): IHeaders {
  const all: Record<string, string | undefined> = {
    'event-id': EVENT_ID,
    'event-type': 'OrderPlaced',
    'aggregate-id': 'order-123',
    'aggregate-version': '1',
    'content-type': 'application/json',
    ...fields,
  };
  const headers: IHeaders = {};
  for (const [k, v] of Object.entries(all)) if (v !== undefined) headers[k] = Buffer.from(v);
  return headers;
}

/** A message with headers and the data as the whole value (headers-only producer). */
export function headerMessage(
  data: unknown = orderPlacedData(),
  fields: Record<string, string | undefined> = {},
  key: string | null = 'order-123',
): RawMessage {
  return {
    key: key === null ? null : Buffer.from(key),
    value: Buffer.from(JSON.stringify(data)),
    headers: headersOf(fields),
  };
}

/** A message without headers; the identity is in the JSON body beside `data`. */
export function bodyMessage(
  body: Record<string, unknown> = {},
  key: string | null = 'order-123',
): RawMessage {
  return {
    key: key === null ? null : Buffer.from(key),
    value: Buffer.from(
      JSON.stringify({
        eventId: EVENT_ID,
        eventType: 'OrderPlaced',
        aggregateId: 'order-123',
        aggregateVersion: 1,
        data: orderPlacedData(),
        ...body,
      }),
    ),
  };
}
