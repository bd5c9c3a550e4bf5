import { z } from 'zod';

/**
 * The event contract (docs/architecture.md, "Event contract"): payloads of the events producers
 * send. Amounts are integers in minor units. Workflows import only the inferred types.
 *
 * Bounds are checked here, at the door, so a value that a column or the payment provider
 * would refuse is dead-lettered (`validation-failed`) instead of parking an order half-done.
 */

/** Longest order, customer or SKU ID (they end up in keys, search attributes and rows). */
const MAX_ID_LENGTH = 200;

/**
 * Most units of one SKU in one order, per line and summed over the order's lines (inventory
 * takes the sum per SKU). inventory_stock.available is a Postgres `integer` (2^31 − 1): this
 * keeps every decrement and every restore far inside it.
 */
export const MAX_QUANTITY = 1_000_000;

/**
 * Largest unit price or total in minor units: the payment provider accepts safe integers only
 * (provider_charges.amount_minor is a `bigint`, which holds more). Every product and partial
 * sum of the total check stays a safe integer, so the comparison is exact.
 */
export const MAX_AMOUNT_MINOR = Number.MAX_SAFE_INTEGER;

/** Most lines of one order. */
export const MAX_ORDER_LINES = 500;

// C0 controls (NUL included, which a Postgres text column refuses), DEL and C1 controls.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
// A surrogate without its partner is not Unicode: UTF-8 encoders replace it, so the row or the
// key would no longer match the ID the event carried.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const count = (n: number) => n.toLocaleString('en-US');

// The character checks run before trim(), so a control character at either end is refused too
// rather than silently cut off.
const id = z
  .string()
  .refine((s) => !CONTROL_CHARS.test(s), 'must not contain control characters')
  .refine((s) => !LONE_SURROGATE.test(s), 'must be well-formed Unicode (no lone surrogates)')
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);

const amountMinor = z
  .number()
  .int('must be whole minor units')
  .max(MAX_AMOUNT_MINOR, `must be at most ${count(MAX_AMOUNT_MINOR)}`);

export const orderLineSchema = z.object({
  sku: id,
  quantity: z
    .number()
    .int('must be a whole number')
    .positive('must be positive')
    .max(MAX_QUANTITY, `must be at most ${count(MAX_QUANTITY)}`),
  unitPriceMinor: amountMinor.nonnegative('must not be negative'),
});

type OrderLineInput = z.infer<typeof orderLineSchema>;

/** Σ quantity × unitPriceMinor, or undefined once a product or partial sum leaves the bound. */
export function orderAmountMinor(items: readonly OrderLineInput[]): number | undefined {
  let sum = 0;
  for (const l of items) {
    sum += l.quantity * l.unitPriceMinor;
    if (!Number.isSafeInteger(sum) || sum > MAX_AMOUNT_MINOR) return undefined;
  }
  return sum;
}

export const orderPlacedDataSchema = z
  .object({
    orderId: id,
    customerId: id,
    /** The merchant the order was placed with: the run's tenant (its fairness key). Optional. */
    merchantId: id.optional(),
    email: z.email('must be an email address'),
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code like EUR'),
    items: z
      .array(orderLineSchema)
      .min(1, 'must hold at least one line')
      .max(MAX_ORDER_LINES, `must hold at most ${MAX_ORDER_LINES} lines`),
    totalMinor: amountMinor.positive('must be positive'),
  })
  .superRefine((d, ctx) => {
    // Lines over the bound on their own already have their issue; only sums are added here.
    const bySku = new Map<string, number>();
    for (const l of d.items)
      if (l.quantity <= MAX_QUANTITY) bySku.set(l.sku, (bySku.get(l.sku) ?? 0) + l.quantity);
    for (const [sku, quantity] of bySku) {
      if (quantity > MAX_QUANTITY)
        ctx.addIssue({
          code: 'custom',
          path: ['items'],
          message: `quantity of SKU ${JSON.stringify(sku)} summed over lines is ${count(quantity)}, more than ${count(MAX_QUANTITY)}`,
        });
    }
    const amount = orderAmountMinor(d.items);
    if (amount === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['totalMinor'],
        message: `the sum of quantity × unitPriceMinor over items exceeds ${count(MAX_AMOUNT_MINOR)}`,
      });
    else if (d.totalMinor !== amount)
      ctx.addIssue({
        code: 'custom',
        path: ['totalMinor'],
        message: 'must equal the sum of quantity × unitPriceMinor over items',
      });
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
