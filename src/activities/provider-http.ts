import { ApplicationFailure } from '@temporalio/common';
import { DEFAULTS } from '../config';
import { parseDurationMs } from '../util/duration';
import type { TransientFailureDetails } from './transient-failure';
import { failureBody } from './failure-body';
import { FAILURE_TYPES } from './failure-types';
import { postJson, type HttpResponse } from './http-post';
import { tracedRequest } from '../tracing/http';

/** Where the provider APIs live and how long one HTTP call may take. */
export interface ProviderClientOptions {
  /** Base URL of the payment and mail APIs. Default: config PROVIDERS_URL (http://127.0.0.1:4010). */
  url: string;
  /** Per-request timeout in ms; past it the call counts as failed and is retried. Default: 5000. */
  timeoutMs?: number;
  /**
   * ORDER_TRANSIENT_RETRY_WINDOW in ms, handed to the workflow inside every transient failure.
   * Default: the config default (1 hour); createWorker passes the configured value.
   */
  transientRetryWindowMs?: number;
  /**
   * ORDER_TRANSIENT_RETRY_INTERVAL in ms, handed over the same way. Default: the workflow's
   * (30 s); createWorker passes the configured value.
   */
  transientRetryIntervalMs?: number;
}

const DEFAULT_WINDOW_MS = parseDurationMs(DEFAULTS.ORDER_TRANSIENT_RETRY_WINDOW)!;

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

/** No response in time: the effect may have happened; a retry with the key replays it. */
export class ProviderTimeoutError extends ProviderCallError {
  override readonly name = 'ProviderTimeoutError';
}

/** Connection refused or reset, DNS failure: the provider is down or unreachable. */
export class ProviderUnreachableError extends ProviderCallError {
  override readonly name = 'ProviderUnreachableError';
}

/** 429: the provider asks us to slow down (Retry-After, when given, says how long). */
export class ProviderRateLimitedError extends ProviderCallError {
  override readonly name = 'ProviderRateLimitedError';
}

/** Seconds or an HTTP date, as ms from now; undefined when absent or unreadable. */
function retryAfterMsOf(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.max(0, Math.round(ms)) : undefined;
}

/**
 * A transient cause as the retryable ApplicationFailure the workflow classifies: the named
 * error's type and message, the window and Retry-After in its details, and Retry-After as
 * `nextRetryDelay` so the activity's own retries (the fast phase) wait at least that long.
 */
function transientFailure(
  options: ProviderClientOptions,
  err: ProviderCallError,
  retryAfterMs?: number,
): ApplicationFailure {
  const details: TransientFailureDetails = {
    transient: true,
    windowMs: options.transientRetryWindowMs ?? DEFAULT_WINDOW_MS,
    ...(options.transientRetryIntervalMs !== undefined
      ? { intervalMs: options.transientRetryIntervalMs }
      : {}),
    retryAfterMs,
    endpoint: err.endpoint,
    key: err.idempotencyKey,
    status: err.status,
  };
  return ApplicationFailure.create({
    type: err.name,
    message: err.message,
    nonRetryable: false,
    details: [details],
    nextRetryDelay: retryAfterMs,
    cause: err,
  });
}

export interface ProviderResponse {
  status: number;
  body: Record<string, unknown>;
}

/**
 * POSTs JSON with the Idempotency-Key header. Returns 2xx and the statuses listed in `accept`;
 * throws retryable transient failures (src/activities/transient-failure.ts) for connection
 * errors, timeouts, 409, 429 and 5xx, and non-retryable ApplicationFailures for 422 (a client
 * bug) and other 4xx.
 */
export async function postToProvider(
  options: ProviderClientOptions,
  request: { path: string; key: string; body: unknown; accept?: number[] },
): Promise<ProviderResponse> {
  const endpoint = `POST ${request.path}`;
  let res: HttpResponse;
  try {
    const url = `${options.url}${request.path}`;
    // A span of its own with `traceparent` sent, so the provider's side joins the order's trace.
    res = await tracedRequest(
      { 'idempotency-key': request.key },
      {
        method: 'POST',
        url,
        send: (headers) => postJson(url, headers, request.body, options.timeoutMs ?? 5000),
      },
    );
  } catch (err) {
    // postJson's deadline is a TimeoutError; everything else is the connection (refused,
    // reset, DNS), with the socket's code.
    const timedOut = (err as Error).name === 'TimeoutError';
    const reason = (err as { code?: string }).code ?? (err as Error).message;
    const Cause = timedOut ? ProviderTimeoutError : ProviderUnreachableError;
    const what = `${endpoint} (key ${request.key}) got no response: ${(err as Error).message}`;
    throw transientFailure(
      options,
      new Cause(
        timedOut ? what : `${what} (${reason})`,
        endpoint,
        request.key,
        undefined,
        undefined,
        {
          cause: err,
        },
      ),
    );
  }
  const body = res.json;
  const { status } = res;
  if ((status >= 200 && status < 300) || request.accept?.includes(status)) return { status, body };
  const what = `${endpoint} (key ${request.key}) answered ${status}`;
  const retryAfter = retryAfterMsOf(res.header('retry-after'));
  if (status === 409)
    throw transientFailure(
      options,
      new IdempotencyKeyInUseError(what, endpoint, request.key, status, body),
      retryAfter,
    );
  if (status === 429)
    throw transientFailure(
      options,
      new ProviderRateLimitedError(what, endpoint, request.key, status, body),
      retryAfter,
    );
  if (status >= 500)
    throw transientFailure(
      options,
      new ProviderUnavailableError(what, endpoint, request.key, status, body),
      retryAfter,
    );
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
