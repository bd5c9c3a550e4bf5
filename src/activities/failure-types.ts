// The agreement between the activities (which throw these ApplicationFailure types) and the
// order workflows (which name them in nonRetryableErrorTypes or branch on them). Pure (no
// imports): workflow code imports it.

/** Failure types the workflows name in nonRetryableErrorTypes or branch on. */
export const FAILURE_TYPES = {
  paymentDeclined: 'PaymentDeclined',
  outOfStock: 'OutOfStock',
  idempotencyKeyReused: 'IdempotencyKeyReused',
  providerRequestRejected: 'ProviderRequestRejected',
} as const;
