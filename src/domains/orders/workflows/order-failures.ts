// The order domain's business failures: thrown by its activities as non-retryable
// ApplicationFailures, named in its step table (each ends the order with an outcome). Pure:
// workflow code imports it.

export const ORDER_FAILURES = {
  /** The card was declined (HTTP 402): the order ends `declined`, its stock released. */
  paymentDeclined: 'PaymentDeclined',
  /** Not enough stock: the order ends `rejected`, nothing reserved or charged. */
  outOfStock: 'OutOfStock',
} as const;
