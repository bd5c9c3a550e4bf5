import type pg from 'pg';
import { EVENT_TYPES } from '../events/order-events';
import { createLedgerStore } from './ledger-store';
import {
  judgeClaim,
  type ClaimCandidate,
  type ClaimVerdict,
  type OrderClaim,
  type SettledState,
} from './order-claim';
import { qualifyTable } from './schema-name';

/**
 * The order claim, table `order_claims` (migrations 0004, 0006): which orderFulfillment run
 * owns an order's effects and how the order ended (the data and its judge:
 * src/db/order-claim.ts). Unqualified table names: the pool's search_path (DATABASE_SCHEMA) picks
 * the schema, as for inventory. The one owner lookup that the cancellation workflow, `orders
 * cancel` / `orders show` and reconcile use is `findOrderOwner`.
 */

type Db = pg.Pool | pg.PoolClient;

/** A claim statement could not be answered as asked; names the order or schema concerned. */
export class OrderClaimStoreError extends Error {
  override readonly name = 'OrderClaimStoreError';
}

interface ClaimRow {
  order_id: string;
  workflow_id: string;
  run_id: string | null;
  fingerprint: string;
  claimed_at: Date;
  cancelled_at: Date | null;
  settled: SettledState | null;
  settled_at: Date | null;
  reopened_at: Date | null;
}

const COLUMNS =
  'order_id, workflow_id, run_id, fingerprint, claimed_at, cancelled_at, settled, settled_at, reopened_at';

function toClaim(r: ClaimRow): OrderClaim {
  return {
    orderId: r.order_id,
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

/**
 * Claims the order for the candidate run in the caller's transaction, or judges it against
 * the claim that exists. The primary key decides: a concurrent claimer waits here until the
 * first commits (then sees its row) or rolls back (then claims itself). `cancelled` records a
 * claim whose owner was cancelled before reserving (settled `cancelled` at once). When the
 * owner's chain asks again: a claim without a run ID takes the asker's (a claim of an older
 * worker adopted by its own run), and a reserve after the order had settled (a Temporal reset)
 * opens the claim again, saying so in `reopened` and `reopened_at`.
 */
export async function claimOrder(
  client: pg.PoolClient,
  input: ClaimCandidate & { orderId: string; cancelled?: boolean },
): Promise<ClaimVerdict> {
  const cancelled = input.cancelled === true;
  const { rows } = await client.query<ClaimRow>(
    `INSERT INTO order_claims
       (order_id, workflow_id, run_id, fingerprint, cancelled_at, settled, settled_at)
     VALUES ($1, $2, $3, $4, CASE WHEN $5 THEN now() END,
             CASE WHEN $5 THEN 'cancelled' END, CASE WHEN $5 THEN now() END)
     ON CONFLICT (order_id) DO NOTHING RETURNING ${COLUMNS}`,
    [input.orderId, input.workflowId, input.runId ?? null, input.fingerprint, cancelled],
  );
  if (rows[0]) return { kind: 'owner', claim: toClaim(rows[0]) };
  const existing = await findOrderClaim(client, input.orderId, { lock: true });
  if (!existing) {
    // Only possible if a row vanished between the two statements (a manual delete).
    throw new OrderClaimStoreError(`order ${input.orderId}: claim conflict but no claim row`);
  }
  const verdict = judgeClaim(existing, input);
  if (verdict.kind !== 'owner') return verdict;
  const adopt = existing.runId === undefined && input.runId !== undefined;
  const reopen = !cancelled && existing.settled !== undefined;
  if (!adopt && !reopen) return verdict;
  const updated = await client.query<ClaimRow>(
    `UPDATE order_claims
        SET run_id = COALESCE(run_id, $2),
            settled = CASE WHEN $3 THEN NULL ELSE settled END,
            settled_at = CASE WHEN $3 THEN NULL ELSE settled_at END,
            reopened_at = CASE WHEN $3 THEN now() ELSE reopened_at END
      WHERE order_id = $1 RETURNING ${COLUMNS}`,
    [input.orderId, input.runId ?? null, reopen],
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

/** Input of settleOrderClaim: the owner (or who acts for it) and how the order ended. */
export interface SettleOrderClaimInput {
  orderId: string;
  /** The owner's workflow ID. */
  workflowId: string;
  /** The owner's first execution run ID; absent: any run of the owner's workflow ID. */
  runId?: string;
  /** The owner's payload fingerprint (only written when a rejection creates the claim). */
  fingerprint: string;
  settled: SettledState;
}

/** What settleOrderClaim did: `settled` false when the claim belongs to another run. */
export interface SettleOrderClaimResult {
  settled: boolean;
  claim?: OrderClaim;
}

/**
 * Records how the order ended, on the owner's claim only (same workflow ID and run, or a claim
 * without a run ID, which then takes this one). A rejected order reserved nothing, so it has
 * no claim yet: its rejection creates one, so that a re-read of the same OrderPlaced after
 * every other memory expired finds the order decided instead of fulfilling it now. Another
 * run's claim is left as it is (`settled: false`). Idempotent: an activity retry writes the
 * same state again.
 */
export async function settleOrderClaim(
  db: Db,
  input: SettleOrderClaimInput,
): Promise<SettleOrderClaimResult> {
  const runId = input.runId ?? null;
  const updated = await db.query<ClaimRow>(
    `UPDATE order_claims
        SET settled = $4, settled_at = now(), run_id = COALESCE(run_id, $3::text)
      WHERE order_id = $1 AND workflow_id = $2
        AND (run_id IS NULL OR $3::text IS NULL OR run_id = $3::text)
      RETURNING ${COLUMNS}`,
    [input.orderId, input.workflowId, runId, input.settled],
  );
  if (updated.rows[0]) return { settled: true, claim: toClaim(updated.rows[0]) };
  if (input.settled === 'rejected') {
    const inserted = await db.query<ClaimRow>(
      `INSERT INTO order_claims (order_id, workflow_id, run_id, fingerprint, settled, settled_at)
       VALUES ($1, $2, $3, $4, 'rejected', now())
       ON CONFLICT (order_id) DO NOTHING RETURNING ${COLUMNS}`,
      [input.orderId, input.workflowId, runId, input.fingerprint],
    );
    if (inserted.rows[0]) return { settled: true, claim: toClaim(inserted.rows[0]) };
  }
  const claim = await findOrderClaim(db, input.orderId);
  return claim ? { settled: false, claim } : { settled: false };
}

/** The claim of an order, if any; `lock` takes its row lock (inside a transaction). */
export async function findOrderClaim(
  db: Db,
  orderId: string,
  options: { lock?: boolean } = {},
): Promise<OrderClaim | undefined> {
  const { rows } = await db.query<ClaimRow>(
    `SELECT ${COLUMNS} FROM order_claims WHERE order_id = $1${options.lock ? ' FOR UPDATE' : ''}`,
    [orderId],
  );
  return rows[0] && toClaim(rows[0]);
}

/** Options of listOrderClaims. */
export interface ListOrderClaimsOptions {
  /** Order ID prefix ('' = all). Default: ''. */
  prefix?: string;
  /**
   * Schema holding order_claims, for callers whose pool is not pointed at it (reconcile).
   * Default: the pool's search_path.
   */
  schema?: string;
}

/** Claims of orders (by ID prefix), for reconcile: the owner of every order in one query. */
export async function listOrderClaims(
  db: Db,
  options: ListOrderClaimsOptions = {},
): Promise<OrderClaim[]> {
  const table =
    options.schema !== undefined ? qualifyTable(options.schema, 'order_claims') : 'order_claims';
  const { rows } = await db.query<ClaimRow>(
    `SELECT ${COLUMNS} FROM ${table} WHERE left(order_id, length($1)) = $1 ORDER BY order_id`,
    [options.prefix ?? ''],
  );
  return rows.map(toClaim);
}

/** Who owns an order's effects, and how that was learnt. */
export interface OrderOwner {
  workflowId: string;
  /**
   * `claim`: the order claim (the run that reserved, or was cancelled first); `ledger`: no
   * claim yet (the order has not reserved), the first OrderPlaced row of the bridge's ledger.
   */
  foundBy: 'claim' | 'ledger';
  claim?: OrderClaim;
}

/**
 * THE owner lookup of an order: its claim, else (a cancellation arriving between the
 * order's start and its reservation) the earliest OrderPlaced row in the bridge's ledger.
 * The claim is kept when the reaper trims the ledger, so a late cancellation still finds the
 * owner. Undefined when neither knows the order.
 */
export async function findOrderOwner(
  db: pg.Pool,
  orderId: string,
): Promise<OrderOwner | undefined> {
  const claim = await findOrderClaim(db, orderId);
  if (claim) return { workflowId: claim.workflowId, foundBy: 'claim', claim };
  // The ledger of the schema this pool serves (createPool's search_path), as the claim above.
  const workflowId = await createLedgerStore(db).findFirstWorkflow(
    orderId,
    EVENT_TYPES.orderPlaced,
  );
  return workflowId !== undefined ? { workflowId, foundBy: 'ledger' } : undefined;
}
