import { ApplicationFailure } from '@temporalio/common';
import { failureBody } from './failure-body';

/** Where the provider APIs live and how long one HTTP call may take. */
export interface ProviderClientOptions {
  /** Base URL of the payment and mail APIs. Default: config PROVIDERS_URL (http://127.0.0.1:4010). */
  url: string;
  /** Per-request timeout in ms; past it the call counts as failed and is retried. Default: 5000. */
  timeoutMs?: number;
}

/** Failure types the workflows name in nonRetryableErrorTypes or branch on. */
export const FAILURE_TYPES = {
  paymentDeclined: 'PaymentDeclined',
  outOfStock: 'OutOfStock',
  idempotencyKeyReused: 'IdempotencyKeyReused',
  providerRequestRejected: 'ProviderRequestRejected',
} as const;

/** Base of provider call errors: says which call, with which key, got what. */
export class ProviderCallError extends Error {
  override readonly name: string = 'ProviderCallError';
  constructor(
    message: string,
    readonly endpoint: string,
    readonly idempotencyKey: string,
    readonly status?: number,
    readonly responseBody?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** 5xx: the provider failed; whether the effect happened is unknown, a retry resolves it. */
export class ProviderUnavailableError extends ProviderCallError {
  override readonly name = 'ProviderUnavailableError';
}

/** 409: another request with this key is in flight; retry after it finishes. */
export class IdempotencyKeyInUseError extends ProviderCallError {
  override readonly name = 'IdempotencyKeyInUseError';
}

/** No response in time (or the connection died): the effect may have happened; retry replays. */
export class ProviderTimeoutError extends ProviderCallError {
  override readonly name = 'ProviderTimeoutError';
}

export interface ProviderResponse {
  status: number;
  body: Record<string, unknown>;
}

/**
 * POSTs JSON with the Idempotency-Key header. Returns 2xx and the statuses listed in `accept`;
 * throws retryable named errors for 409, 5xx and timeouts, and non-retryable
 * ApplicationFailures for 422 (a client bug) and other 4xx.
 */
export async function postToProvider(
  options: ProviderClientOptions,
  request: { path: string; key: string; body: unknown; accept?: number[] },
): Promise<ProviderResponse> {
  const endpoint = `POST ${request.path}`;
  let res: Response;
  let body: Record<string, unknown>;
  try {
    res = await fetch(`${options.url}${request.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': request.key },
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
    });
    body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  } catch (err) {
    throw new ProviderTimeoutError(
      `${endpoint} (key ${request.key}) got no response: ${(err as Error).message}`,
      endpoint,
      request.key,
      undefined,
      undefined,
      { cause: err },
    );
  }
  const { status } = res;
  if ((status >= 200 && status < 300) || request.accept?.includes(status)) return { status, body };
  const what = `${endpoint} (key ${request.key}) answered ${status}`;
  if (status === 409) throw new IdempotencyKeyInUseError(what, endpoint, request.key, status, body);
  if (status >= 500) throw new ProviderUnavailableError(what, endpoint, request.key, status, body);
  if (status === 422) {
    // Same key, different request: our key derivation or payload is wrong. Retrying cannot help.
    throw ApplicationFailure.create({
      type: FAILURE_TYPES.idempotencyKeyReused,
      message: `${what}: idempotency key reused with a different request`,
      nonRetryable: true,
      details: [{ endpoint, key: request.key, body: failureBody(body) }],
    });
  }
  throw ApplicationFailure.create({
    type: FAILURE_TYPES.providerRequestRejected,
    message: what,
    nonRetryable: true,
    details: [{ endpoint, key: request.key, status, body: failureBody(body) }],
  });
}
