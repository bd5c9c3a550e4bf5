import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/** A stored response, replayed verbatim for a repeat of the same request. */
export interface StoredResponse {
  status: number;
  body: unknown;
}

/** What the key store says about an incoming request. */
export type ClaimResult =
  /** First sight of the key (or an expired lease taken over): execute under this lease. */
  | { kind: 'execute'; leaseToken: string; takeover: boolean }
  /** Same key, same request, already finished: send the stored response again. */
  | { kind: 'replay'; response: StoredResponse }
  /** Same key, different request: a client bug (422). */
  | { kind: 'mismatch' }
  /** Same key while the first request still holds its lease (409). */
  | { kind: 'in-flight' };

export interface ClaimKeyInput {
  scope: string;
  key: string;
  fingerprint: string;
  /** How long the claimer may run before another request for the key may take over. */
  leaseMs: number;
  /** How long the key (and its stored response) is kept before the reaper deletes it. */
  ttlMs: number;
}

interface KeyRow {
  fingerprint: string;
  state: 'started' | 'completed' | 'failed';
  lease_expired: boolean;
  response_status: number | null;
  response_body: unknown;
}

/**
 * Claims an idempotency key in one transaction. The row lock (FOR UPDATE) serialises two
 * requests for one key, so exactly one of them gets `execute`; a unique violation on insert
 * means a concurrent claimer won and we re-read its row. A key past its retention counts as
 * never seen, reaped or not: the request executes afresh, as at a real provider that has
 * forgotten it (nothing else in the sandbox makes an effect unique per key).
 */
export async function claimKey(pool: pg.Pool, input: ClaimKeyInput): Promise<ClaimResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const leaseToken = randomUUID();
    const inserted = await client.query(
      `INSERT INTO provider_idempotency_keys
         (scope, key, fingerprint, state, lease_token, lease_expires_at, expires_at)
       VALUES ($1, $2, $3, 'started', $4,
               now() + $5 * interval '1 millisecond', now() + $6 * interval '1 millisecond')
       ON CONFLICT (scope, key) DO UPDATE
         SET fingerprint = EXCLUDED.fingerprint, state = 'started',
             lease_token = EXCLUDED.lease_token, lease_expires_at = EXCLUDED.lease_expires_at,
             response_status = NULL, response_body = NULL,
             created_at = now(), expires_at = EXCLUDED.expires_at
         WHERE provider_idempotency_keys.expires_at < now()`,
      [input.scope, input.key, input.fingerprint, leaseToken, input.leaseMs, input.ttlMs],
    );
    if (inserted.rowCount === 1) {
      await client.query('COMMIT');
      return { kind: 'execute', leaseToken, takeover: false };
    }
    const { rows } = await client.query<KeyRow>(
      `SELECT fingerprint, state, lease_expires_at < now() AS lease_expired,
              response_status, response_body
         FROM provider_idempotency_keys WHERE scope = $1 AND key = $2 FOR UPDATE`,
      [input.scope, input.key],
    );
    const row = rows[0];
    let result: ClaimResult;
    if (!row) {
      // Reaped or released between our insert and select: the caller simply tries again.
      result = { kind: 'in-flight' };
    } else if (row.fingerprint !== input.fingerprint) {
      result = { kind: 'mismatch' };
    } else if (row.state !== 'started') {
      result = {
        kind: 'replay',
        response: { status: row.response_status ?? 500, body: row.response_body },
      };
    } else if (!row.lease_expired) {
      result = { kind: 'in-flight' };
    } else {
      // The first request's lease ran out (it died or hangs): we take over. Its commit, if
      // it ever comes, fails the lease-token check in completeKey and is rolled back.
      await client.query(
        `UPDATE provider_idempotency_keys
            SET lease_token = $3, lease_expires_at = now() + $4 * interval '1 millisecond'
          WHERE scope = $1 AND key = $2`,
        [input.scope, input.key, leaseToken, input.leaseMs],
      );
      result = { kind: 'execute', leaseToken, takeover: true };
    }
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Records the outcome inside the caller's effect transaction, so the effect and the stored
 * response commit together. Returns false when our lease was taken over: the caller must
 * roll back its effect.
 */
export async function completeKey(
  client: pg.PoolClient,
  input: { scope: string; key: string; leaseToken: string; response: StoredResponse },
): Promise<boolean> {
  const state = input.response.status < 400 ? 'completed' : 'failed';
  const { rowCount } = await client.query(
    `UPDATE provider_idempotency_keys
        SET state = $4, response_status = $5, response_body = $6,
            lease_token = NULL, lease_expires_at = NULL
      WHERE scope = $1 AND key = $2 AND lease_token = $3 AND state = 'started'`,
    [
      input.scope,
      input.key,
      input.leaseToken,
      state,
      input.response.status,
      JSON.stringify(input.response.body),
    ],
  );
  return rowCount === 1;
}

/**
 * Gives a key back after a failure before commit, so the client's retry executes afresh
 * instead of waiting for the lease to expire. Only our own lease is released.
 */
export async function releaseKey(
  pool: pg.Pool,
  input: { scope: string; key: string; leaseToken: string },
): Promise<void> {
  await pool.query(
    `DELETE FROM provider_idempotency_keys
      WHERE scope = $1 AND key = $2 AND lease_token = $3 AND state = 'started'`,
    [input.scope, input.key, input.leaseToken],
  );
}

/** Deletes keys whose retention ended; returns how many. `now` is injectable for tests. */
export async function reapExpiredKeys(pool: pg.Pool, now: Date = new Date()): Promise<number> {
  const { rowCount } = await pool.query(
    'DELETE FROM provider_idempotency_keys WHERE expires_at < $1',
    [now],
  );
  return rowCount ?? 0;
}

/** Which keys expireKeys forgets; no field = every finished key. */
export interface ExpireKeysInput {
  /** Only this endpoint's keys (`charges`, `refunds`, `emails`). */
  scope?: string;
  /** Only these keys. */
  keys?: readonly string[];
  /** Only keys starting with this (e.g. `order:o-1:`). */
  prefix?: string;
}

/**
 * Forgets keys now, as if their retention had ended (tests and chaos make a day pass): the
 * next request with such a key executes again. Keys of requests still in flight are kept, as a
 * real provider's would be (a retention counts from the request). Returns how many went.
 */
export async function expireKeys(pool: pg.Pool, input: ExpireKeysInput): Promise<number> {
  const { rowCount } = await pool.query(
    `DELETE FROM provider_idempotency_keys
      WHERE state <> 'started'
        AND ($1::text IS NULL OR scope = $1)
        AND ($2::text[] IS NULL OR key = ANY($2::text[]))
        AND ($3::text IS NULL OR left(key, length($3)) = $3)`,
    [input.scope ?? null, input.keys ? [...input.keys] : null, input.prefix ?? null],
  );
  return rowCount ?? 0;
}

/** One key row, for the admin API and tests. */
export async function findKey(
  pool: pg.Pool,
  input: { scope: string; key: string },
): Promise<Record<string, unknown> | undefined> {
  const { rows } = await pool.query(
    `SELECT scope, key, fingerprint, state, lease_expires_at, response_status, response_body,
            created_at, expires_at
       FROM provider_idempotency_keys WHERE scope = $1 AND key = $2`,
    [input.scope, input.key],
  );
  return rows[0];
}
