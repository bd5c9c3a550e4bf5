import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type pg from 'pg';
import type { FaultEndpoint, FaultInjector } from './faults';
import {
  errorBody,
  fingerprintRequest,
  idempotencyKeyOf,
  parseBody,
  readJson,
  sendJson,
} from './http-util';
import { claimKey, completeKey, releaseKey, type StoredResponse } from './key-store';

/** Key store timings, injectable so tests can expire leases and keys quickly. */
export interface KeyTimings {
  /** Lease of an in-flight request; a repeat within it gets 409. */
  leaseMs: number;
  /** Retention of a key and its stored response before the reaper deletes it. */
  keyTtlMs: number;
}

export interface IdempotentRequest {
  endpoint: FaultEndpoint;
  key: string;
  fingerprint: string;
  /**
   * Performs the effect inside the transaction that also stores the response. Returns
   * `store: false` for outcomes that must not be replayed (e.g. 404 on a refund whose charge
   * may still appear): the key is then released instead of completed.
   */
  execute: (client: pg.PoolClient) => Promise<StoredResponse & { store?: boolean }>;
}

export interface IdempotencyContext {
  pool: pg.Pool;
  faults: FaultInjector;
  timings: KeyTimings;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The Stripe-style protocol around one effectful request: claim the key (replay / 422 / 409
 * / execute), inject faults, run the effect and store the response in one transaction.
 */
export async function handleIdempotentRequest(
  ctx: IdempotencyContext,
  res: ServerResponse,
  request: IdempotentRequest,
): Promise<void> {
  const scope = request.endpoint;
  const claim = await claimKey(ctx.pool, {
    scope,
    key: request.key,
    fingerprint: request.fingerprint,
    leaseMs: ctx.timings.leaseMs,
    ttlMs: ctx.timings.keyTtlMs,
  });
  if (claim.kind === 'replay') {
    res.setHeader('idempotent-replayed', 'true');
    return sendJson(res, claim.response.status, claim.response.body);
  }
  if (claim.kind === 'mismatch') {
    return sendJson(
      res,
      422,
      errorBody('idempotency_key_reused', 'this key was used with a different request'),
    );
  }
  if (claim.kind === 'in-flight') {
    return sendJson(
      res,
      409,
      errorBody('idempotency_key_in_use', 'a request with this key is in flight; retry later'),
    );
  }
  const lease = { scope, key: request.key, leaseToken: claim.leaseToken };
  const fault = ctx.faults.decide(request.endpoint);
  if (fault.latencyMs > 0) await pause(fault.latencyMs);
  if (fault.rateLimitedFor !== undefined) {
    await releaseKey(ctx.pool, lease);
    res.setHeader('retry-after', String(fault.rateLimitedFor));
    return sendJson(
      res,
      429,
      errorBody('rate_limited', 'too many requests; retry after the delay'),
    );
  }
  if (fault.failBeforeCommit) {
    await releaseKey(ctx.pool, lease);
    return sendJson(res, 500, errorBody('injected_failure', 'injected failure before commit'));
  }

  const client = await ctx.pool.connect();
  let response: StoredResponse & { store?: boolean };
  try {
    await client.query('BEGIN');
    response = await request.execute(client);
    if (response.store === false) {
      await client.query('ROLLBACK');
      await releaseKey(ctx.pool, lease);
      return sendJson(res, response.status, response.body);
    }
    if (!(await completeKey(client, { ...lease, response }))) {
      // Our lease expired and another request took the key over: its effect wins.
      await client.query('ROLLBACK');
      return sendJson(
        res,
        409,
        errorBody('idempotency_key_taken_over', 'the lease expired and another request took over'),
      );
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    await releaseKey(ctx.pool, lease).catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  if (fault.holdResponseMs > 0) await pause(fault.holdResponseMs);
  if (fault.timeoutAfterCommit) {
    // The effect is committed; the client never hears about it (a lost response).
    res.socket?.destroy();
    return;
  }
  sendJson(res, response.status, response.body);
}

/**
 * A POST of the sandbox's APIs: the Idempotency-Key header, the JSON body validated by
 * `schema` and fingerprinted with method and path, then the idempotency protocol above with
 * the validated body and key handed to `execute`.
 */
export async function handleIdempotentPost<T>(
  ctx: IdempotencyContext,
  req: IncomingMessage,
  res: ServerResponse,
  post: {
    endpoint: FaultEndpoint;
    path: string;
    schema: z.ZodType<T>;
    execute: (
      client: pg.PoolClient,
      body: T,
      key: string,
    ) => ReturnType<IdempotentRequest['execute']>;
  },
): Promise<void> {
  const key = idempotencyKeyOf(req);
  const raw = await readJson(req);
  const body = parseBody(post.schema, raw);
  await handleIdempotentRequest(ctx, res, {
    endpoint: post.endpoint,
    key,
    fingerprint: fingerprintRequest('POST', post.path, raw),
    execute: (client) => post.execute(client, body, key),
  });
}
