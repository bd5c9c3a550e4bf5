import type { CartCheckedOutData } from '../../src/domains/carts/cart-events';
import { uniqueName } from './services';

/**
 * A fresh cart of three lines (apple 2 × 500, pear 1 × 1200, fig 3 × 100: 2500 EUR cents), a
 * primary card the sandbox charges and a backup card, fields overridable.
 */
export function newCart(over: Partial<CartCheckedOutData> = {}): CartCheckedOutData {
  return {
    cartId: uniqueName('cart'),
    customerId: 'cus_cart',
    email: 'buyer@example.com',
    currency: 'EUR',
    lines: [
      { sku: 'apple', quantity: 2, unitPriceMinor: 500 },
      { sku: 'pear', quantity: 1, unitPriceMinor: 1200 },
      { sku: 'fig', quantity: 3, unitPriceMinor: 100 },
    ],
    totalMinor: 2500,
    primaryCard: 'tok_visa',
    backupCard: 'tok_mastercard',
    address: '1 Quay Street',
    ...over,
  };
}

/** The sandbox's card that is always declined (its charge answers 402). */
export const DECLINED_CARD = 'tok_chargeDeclined';
