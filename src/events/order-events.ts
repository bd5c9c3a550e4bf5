import { z } from 'zod';

/**
 * The event contract (ARCHITECTURE.md, "Event contract"): payloads of the events producers
 * send. Amounts are integers in minor units. Workflows import only the inferred types.
 */

const id = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

export const orderLineSchema = z.object({
  sku: id,
  quantity: z.number().int('must be a whole number').positive('must be positive'),
  unitPriceMinor: z.number().int('must be whole minor units').nonnegative('must not be negative'),
});

export const orderPlacedDataSchema = z
  .object({
    orderId: id,
    customerId: id,
    email: z.email('must be an email address'),
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code like EUR'),
    items: z.array(orderLineSchema).min(1, 'must hold at least one line').max(500),
    totalMinor: z.number().int('must be whole minor units').positive('must be positive'),
  })
  .refine((d) => d.totalMinor === d.items.reduce((s, l) => s + l.quantity * l.unitPriceMinor, 0), {
    message: 'must equal the sum of quantity × unitPriceMinor over items',
    path: ['totalMinor'],
  });

export const orderCancelledDataSchema = z.object({
  orderId: id,
  reason: z.string().trim().min(1, 'must not be empty').max(1000),
});

export type OrderLine = z.infer<typeof orderLineSchema>;
export type OrderPlacedData = z.infer<typeof orderPlacedDataSchema>;
export type OrderCancelledData = z.infer<typeof orderCancelledDataSchema>;

export const EVENT_TYPES = {
  orderPlaced: 'OrderPlaced',
  orderCancelled: 'OrderCancelled',
} as const;
