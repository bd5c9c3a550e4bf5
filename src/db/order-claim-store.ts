import type pg from 'pg';
import { EVENT_TYPES } from '../events/order-events';
import { createLedgerStore } from './ledger-store';
import { qualifyTable } from './schema-name';

/**
 * The order claim, table `order_claims` (migration 0004): which orderFulfillment run owns an
 * order's effects. Unqualified table names: the pool's search_path (DATABASE_SCHEMA) picks
 * the schema, as for inventory. The one owner lookup that the cancellation workflow, `orders
 * cancel` / `orders show` and reconcile use is `findOrderOwner`.
 */

type Db = pg.Pool | pg.PoolClient;

/** A claim statement could not be answered as asked; names the order or schema concerned. */
export class OrderClaimStoreError extends Error {
  override readonly name = 'OrderClaimStoreError';
}

export interface OrderClaim {
  orderId: string;
  /** The owning orderFulfillment run. */
  workflowId: string;
  /** Payload fingerprint of the owner's OrderPlaced data. */
  fingerprint: string;
  claimedAt: string;
  /** Set when the owner was cancelled before it reserved anything. */
  cancelledAt?: string;
}

/** What a run learns when it asks for an order: it owns it, or another run does. */
export type ClaimVerdict =
  | { kind: 'owner'; claim: OrderClaim }
  /** Another run owns the order with the same payload: this run is a re-send. */
  | { kind: 'duplicate'; claim: OrderClaim }
  /** Another run owns the order with a different payload: never acted on. */
  | { kind: 'order-conflict'; claim: OrderClaim; fingerprint: string };

/**
 * Judges a run against the order's claim. The owner re-asking (activity retry, replay,
 * worker crash, reset) is the owner whatever it sends; anyone else is a duplicate when the
 * payload is the same and an order conflict when it is not. Pure.
 */
export function judgeClaim(
  claim: OrderClaim,
  candidate: { workflowId: string; fingerprint: string },
): ClaimVerdict {
  if (claim.workflowId === candidate.workflowId) return { kind: 'owner', claim };
  if (claim.fingerprint === candidate.fingerprint) return { kind: 'duplicate', claim };
  return { kind: 'order-conflict', claim, fingerprint: candidate.fingerprint };
}

interface ClaimRow {
  order_id: string;
  workflow_id: string;
  fingerprint: string;
  claimed_at: Date;
  cancelled_at: Date | null;
}

const COLUMNS = 'order_id, workflow_id, fingerprint, claimed_at, cancelled_at';

function toClaim(r: ClaimRow): OrderClaim {
  return {
    orderId: r.order_id,
    workflowId: r.workflow_id,
    fingerprint: r.fingerprint,
    claimedAt: r.claimed_at.toISOString(),
    ...(r.cancelled_at ? { cancelledAt: r.cancelled_at.toISOString() } : {}),
  };
}

/**
 * Claims the order for `workflowId` in the caller's transaction, or returns the claim that
 * exists. The primary key decides: a concurrent claimer waits here until the first commits
 * (then sees its row) or rolls back (then claims itself). `cancelled` records a claim whose
 * owner was cancelled before reserving.
 */
export async function claimOrder(
  client: pg.PoolClient,
  input: { orderId: string; workflowId: string; fingerprint: string; cancelled?: boolean },
): Promise<ClaimVerdict> {
  const { rows } = await client.query<ClaimRow>(
    `INSERT INTO order_claims (order_id, workflow_id, fingerprint, cancelled_at)
     VALUES ($1, $2, $3, CASE WHEN $4 THEN now() END)
     ON CONFLICT (order_id) DO NOTHING RETURNING ${COLUMNS}`,
    [input.orderId, input.workflowId, input.fingerprint, input.cancelled === true],
  );
  if (rows[0]) return { kind: 'owner', claim: toClaim(rows[0]) };
  const existing = await findOrderClaim(client, input.orderId);
  if (!existing) {
    // Only possible if a row vanished between the two statements (a manual delete).
    throw new OrderClaimStoreError(`order ${input.orderId}: claim conflict but no claim row`);
  }
  return judgeClaim(existing, input);
}

/** The claim of an order, if any. */
export async function findOrderClaim(db: Db, orderId: string): Promise<OrderClaim | undefined> {
  const { rows } = await db.query<ClaimRow>(
    `SELECT ${COLUMNS} FROM order_claims WHERE order_id = $1`,
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
