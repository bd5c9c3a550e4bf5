// The cart domain's names, shared by its workflows, activities, invariants and clients. Pure.

/** The domain (entity_claims.domain, `npx onceflow carts …`). */
export const CARTS_DOMAIN = 'carts';
/** First part of every cart key: `cart:<cartId>:<step>` (`cart:<cartId>:reserve:<sku>` per line). */
export const CART_KEY_KIND = 'cart';

/** Business failures of the cart's steps. */
export const CART_FAILURES = { cardDeclined: 'CardDeclined' } as const;

/** The event a fulfilled cart publishes, and the topic it goes to (setup creates it). */
export const CART_FULFILLED = 'CartFulfilled';
export const CART_EVENTS_TOPIC = 'cart-events';

/** The two mails of a cart, told apart by their subject's first word. */
export const CART_MAILS = {
  notice: (cartId: string) => `Shipped: cart ${cartId}`,
  receipt: (cartId: string) => `Receipt: cart ${cartId}`,
} as const;
export type CartMail = keyof typeof CART_MAILS;

/** Which of a cart's mails a subject is (undefined: none of them). */
export function cartMailOf(subject: string): CartMail | undefined {
  if (subject.startsWith('Shipped: ')) return 'notice';
  if (subject.startsWith('Receipt: ')) return 'receipt';
  return undefined;
}

/** The providers a cart's steps call, each on its own task queue (PROVIDER_RATE_LIMITS). */
export const CART_PROVIDER = {
  warehouse: 'warehouse',
  card: 'card',
  shipping: 'shipping',
  mail: 'mail',
  kafka: 'kafka',
} as const;
