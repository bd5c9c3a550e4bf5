import type pg from 'pg';
import {
  judgeClaim,
  type ClaimCandidate,
  type ClaimVerdict,
  type EntityClaim,
} from './entity-claim';
import { qualifyTable } from '../config/schema-name';

/**
 * The business claim, table `entity_claims` (migration 0008; order claims from 0004 and 0006
 * moved in as domain `orders`): which run owns the effects of one entity of one domain and how
 * the entity ended (the data and its judge: src/db/entity-claim.ts). Unqualified table names:
 * the pool's search_path (DATABASE_SCHEMA) picks the schema. A domain whose first step must
 * claim atomically with its own effect (orders: with the reservation) calls `claimEntity` on
 * its own transaction's client; the others get the claim as an engine step
 * (`claimEntityOnce`, src/activities/claims.ts).
 */

type Db = pg.Pool | pg.PoolClient;

/** A claim statement could not be answered as asked; names the entity concerned. */
export class EntityClaimStoreError extends Error {
  override readonly name = 'EntityClaimStoreError';
}

/** Which entity: the domain's name and the entity's ID within it. */
export interface EntityRef {
  domain: string;
  entityId: string;
}

interface ClaimRow {
  domain: string;
  entity_id: string;
  workflow_id: string;
  run_id: string | null;
  fingerprint: string;
  claimed_at: Date;
  cancelled_at: Date | null;
  settled: string | null;
  settled_at: Date | null;
  reopened_at: Date | null;
}

const COLUMNS =
  'domain, entity_id, workflow_id, run_id, fingerprint, claimed_at, cancelled_at, settled, settled_at, reopened_at';

function toClaim(r: ClaimRow): EntityClaim {
  return {
    domain: r.domain,
    entityId: r.entity_id,
    workflowId: r.workflow_id,
    ...(r.run_id !== null ? { runId: r.run_id } : {}),
    fingerprint: r.fingerprint,
    claimedAt: r.claimed_at.toISOString(),
    ...(r.cancelled_at ? { cancelledAt: r.cancelled_at.toISOString() } : {}),
    ...(r.settled !== null && r.settled_at
      ? { settled: r.settled, settledAt: r.settled_at.toISOString() }
      : {}),
    ...(r.reopened_at ? { reopenedAt: r.reopened_at.toISOString() } : {}),
  };
}

/** Input of claimEntity: the entity, the run asking, and whether it was cancelled first. */
export type ClaimEntityInput = EntityRef &
  ClaimCandidate & {
    /** The run was cancelled before its claiming step: the claim is settled `cancelled`. */
    cancelled?: boolean;
  };

/**
 * Claims the entity for the candidate run in the caller's transaction, or judges it against
 * the claim that exists. The primary key decides: a concurrent claimer waits here until the
 * first commits (then sees its row) or rolls back (then claims itself). `cancelled` records a
 * claim whose owner was cancelled before its claiming step (settled `cancelled` at once). When
 * the owner's chain asks again: a claim without a run ID takes the asker's (a claim of an
 * older worker adopted by its own run), and a claim after the entity had settled (a Temporal
 * reset) opens it again, saying so in `reopened` and `reopened_at`. Two statements at most on
 * the first claim's path: the INSERT, and nothing else.
 */
export async function claimEntity(
  client: pg.PoolClient,
  input: ClaimEntityInput,
): Promise<ClaimVerdict> {
  const cancelled = input.cancelled === true;
  const { rows } = await client.query<ClaimRow>(
    `INSERT INTO entity_claims
       (domain, entity_id, workflow_id, run_id, fingerprint, cancelled_at, settled, settled_at)
     VALUES ($1, $2, $3, $4, $5, CASE WHEN $6 THEN now() END,
             CASE WHEN $6 THEN 'cancelled' END, CASE WHEN $6 THEN now() END)
     ON CONFLICT (domain, entity_id) DO NOTHING RETURNING ${COLUMNS}`,
    [
      input.domain,
      input.entityId,
      input.workflowId,
      input.runId ?? null,
      input.fingerprint,
      cancelled,
    ],
  );
  if (rows[0]) return { kind: 'owner', claim: toClaim(rows[0]) };
  const existing = await findClaim(client, input, { lock: true });
  if (!existing) {
    // Only possible if a row vanished between the two statements (a manual delete).
    throw new EntityClaimStoreError(
      `${input.domain} ${input.entityId}: claim conflict but no claim row`,
    );
  }
  const verdict = judgeClaim(existing, input);
  if (verdict.kind !== 'owner') return verdict;
  const adopt = existing.runId === undefined && input.runId !== undefined;
  const reopen = !cancelled && existing.settled !== undefined;
  if (!adopt && !reopen) return verdict;
  const updated = await client.query<ClaimRow>(
    `UPDATE entity_claims
        SET run_id = COALESCE(run_id, $3),
            settled = CASE WHEN $4 THEN NULL ELSE settled END,
            settled_at = CASE WHEN $4 THEN NULL ELSE settled_at END,
            reopened_at = CASE WHEN $4 THEN now() ELSE reopened_at END
      WHERE domain = $1 AND entity_id = $2 RETURNING ${COLUMNS}`,
    [input.domain, input.entityId, input.runId ?? null, reopen],
  );
  const claim = toClaim(updated.rows[0]!);
  return reopen
    ? {
        kind: 'owner',
        claim,
        reopened: { settled: existing.settled!, settledAt: existing.settledAt! },
      }
    : { kind: 'owner', claim };
}

/** claimEntity in a transaction of its own (the engine's claim step). */
export async function claimEntityOnce(
  pool: pg.Pool,
  input: ClaimEntityInput,
): Promise<ClaimVerdict> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const verdict = await claimEntity(client, input);
    await client.query('COMMIT');
    return verdict;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Input of settleClaim: the owner (or who acts for it) and how the entity ended. */
export interface SettleClaimInput extends EntityRef {
  /** The owner's workflow ID. */
  workflowId: string;
  /** The owner's first execution run ID; absent: any run of the owner's workflow ID. */
  runId?: string;
  /** The owner's payload fingerprint (only written when `createIfAbsent` creates the claim). */
  fingerprint: string;
  settled: string;
  /**
   * The run ended before its claim was written (its claiming step failed for a business
   * reason and rolled the claim back with it, e.g. out of stock): the settlement creates the
   * claim, so a re-read of the same event after every other memory expired finds the entity
   * decided instead of acting on it now. Default: false.
   */
  createIfAbsent?: boolean;
}

/** What settleClaim did: `settled` false when the claim belongs to another run. */
export interface SettleClaimResult {
  settled: boolean;
  claim?: EntityClaim;
}

/**
 * Records how the entity ended, on the owner's claim only (same workflow ID and run, or a
 * claim without a run ID, which then takes this one). Another run's claim is left as it is
 * (`settled: false`). Idempotent: an activity retry writes the same state again.
 */
export async function settleClaim(db: Db, input: SettleClaimInput): Promise<SettleClaimResult> {
  const runId = input.runId ?? null;
  const updated = await db.query<ClaimRow>(
    `UPDATE entity_claims
        SET settled = $5, settled_at = now(), run_id = COALESCE(run_id, $4::text)
      WHERE domain = $1 AND entity_id = $2 AND workflow_id = $3
        AND (run_id IS NULL OR $4::text IS NULL OR run_id = $4::text)
      RETURNING ${COLUMNS}`,
    [input.domain, input.entityId, input.workflowId, runId, input.settled],
  );
  if (updated.rows[0]) return { settled: true, claim: toClaim(updated.rows[0]) };
  if (input.createIfAbsent) {
    const inserted = await db.query<ClaimRow>(
      `INSERT INTO entity_claims
         (domain, entity_id, workflow_id, run_id, fingerprint, settled, settled_at)
       VALUES ($1, $2, $3, $4, $5, $6, now())
       ON CONFLICT (domain, entity_id) DO NOTHING RETURNING ${COLUMNS}`,
      [input.domain, input.entityId, input.workflowId, runId, input.fingerprint, input.settled],
    );
    if (inserted.rows[0]) return { settled: true, claim: toClaim(inserted.rows[0]) };
  }
  const claim = await findClaim(db, input);
  return claim ? { settled: false, claim } : { settled: false };
}

/** The claim of an entity, if any; `lock` takes its row lock (inside a transaction). */
export async function findClaim(
  db: Db,
  ref: EntityRef,
  options: { lock?: boolean } = {},
): Promise<EntityClaim | undefined> {
  const { rows } = await db.query<ClaimRow>(
    `SELECT ${COLUMNS} FROM entity_claims WHERE domain = $1 AND entity_id = $2${options.lock ? ' FOR UPDATE' : ''}`,
    [ref.domain, ref.entityId],
  );
  return rows[0] && toClaim(rows[0]);
}

/** Options of listClaims. */
export interface ListClaimsOptions {
  /** Entity ID prefix ('' = all). Default: ''. */
  prefix?: string;
  /**
   * Schema holding entity_claims, for callers whose pool is not pointed at it (reconcile).
   * Default: the pool's search_path.
   */
  schema?: string;
}

/** Claims of one domain's entities (by ID prefix), for reconcile: every owner in one query. */
export async function listClaims(
  db: Db,
  domain: string,
  options: ListClaimsOptions = {},
): Promise<EntityClaim[]> {
  const table =
    options.schema !== undefined ? qualifyTable(options.schema, 'entity_claims') : 'entity_claims';
  const { rows } = await db.query<ClaimRow>(
    `SELECT ${COLUMNS} FROM ${table}
      WHERE domain = $1 AND left(entity_id, length($2)) = $2 ORDER BY entity_id`,
    [domain, options.prefix ?? ''],
  );
  return rows.map(toClaim);
}
