// The agreement between the engine's activities (which throw these ApplicationFailure types)
// and the step runner (which names them in nonRetryableErrorTypes). Pure (no imports):
// workflow code imports it. A domain's business failures (out of stock, a declined card) are
// the domain's own, named in its step table.

/** Failures that retrying cannot fix: a client bug (422 key reuse) or a rejected request (4xx). */
export const FAILURE_TYPES = {
  idempotencyKeyReused: 'IdempotencyKeyReused',
  providerRequestRejected: 'ProviderRequestRejected',
} as const;

/** Every engine failure type a retry cannot fix: the foreign class never retries them. */
export const BUG_FAILURES: readonly string[] = Object.values(FAILURE_TYPES);
