// The cart domain's events: what a producer sends and the bridge validates. Pure (zod).
import { z } from 'zod';

export const CART_EVENT_TYPES = {
  cartCheckedOut: 'CartCheckedOut',
  cartCancelled: 'CartCancelled',
} as const;

/** Most lines of one cart: each is a hold and maybe a release, well inside a run's budget. */
export const MAX_CART_LINES = 50;

const id = z.string().trim().min(1).max(200);
const card = z.string().trim().min(1).max(100);

export const cartLineSchema = z.object({
  sku: id,
  quantity: z.number().int().positive().max(1_000_000),
  unitPriceMinor: z.number().int().positive().max(100_000_000),
});
export type CartLine = z.infer<typeof cartLineSchema>;

/**
 * CartCheckedOut: hold every line, charge the primary card (the backup card when the primary
 * is declined), then ship and mail the notice while the receipt is mailed and CartFulfilled
 * published. Each line is held once under its SKU, so a SKU appears on one line only.
 */
export const cartCheckedOutSchema = z
  .object({
    cartId: id,
    customerId: id,
    email: z.string().trim().min(3).max(320),
    currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code'),
    lines: z.array(cartLineSchema).min(1).max(MAX_CART_LINES),
    totalMinor: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    /** The card token charged first. */
    primaryCard: card,
    /** The card charged when the primary is declined; without one a decline ends the cart. */
    backupCard: card.optional(),
    address: z.string().trim().min(1).max(500),
  })
  .superRefine((d, ctx) => {
    const skus = d.lines.map((l) => l.sku);
    const repeated = skus.find((s, i) => skus.indexOf(s) !== i);
    if (repeated !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['lines'],
        message: `SKU ${repeated} is on two lines: one line per SKU (each is held once)`,
      });
    const sum = d.lines.reduce((s, l) => s + l.quantity * l.unitPriceMinor, 0);
    if (sum !== d.totalMinor)
      ctx.addIssue({
        code: 'custom',
        path: ['totalMinor'],
        message: `must be the sum of the lines (${sum})`,
      });
  });
export type CartCheckedOutData = z.infer<typeof cartCheckedOutSchema>;

/** CartCancelled: undo the cart, whether it is still running or already fulfilled. */
export const cartCancelledSchema = z.object({
  cartId: id,
  reason: z.string().max(500).default('cancelled by the customer'),
});
export type CartCancelledData = z.infer<typeof cartCancelledSchema>;
