import type pg from 'pg';
import type { ClaimCandidate, ClaimVerdict } from '../../db/entity-claim';
import {
  claimEntity,
  findClaim,
  listClaims,
  settleClaim,
  type ListClaimsOptions,
} from '../../db/entity-claim-store';
import { createLedgerStore } from '../../db/ledger-store';
import { EVENT_TYPES } from './order-events';
import {
  ORDERS_DOMAIN,
  orderClaimOf,
  type OrderClaim,
  type SettledState,
} from './workflows/order-claim';

/**
 * The order claim on the engine's claim store (src/db/entity-claim-store.ts, domain
 * `orders`). The one owner lookup that the cancellation workflow, `orders cancel` / `orders
 * show` and reconcile use is `findOrderOwner`.
 */

type Db = pg.Pool | pg.PoolClient;

function verdictOf(verdict: ClaimVerdict): ClaimVerdict<OrderClaim> {
  return verdict.kind === 'owner'
    ? { ...verdict, claim: orderClaimOf(verdict.claim) }
    : { ...verdict, claim: orderClaimOf(verdict.claim) };
}

/**
 * Claims the order for the candidate run in the caller's transaction (the reservation's), or
 * judges it against the claim that exists (src/db/entity-claim-store.ts, claimEntity).
 */
export async function claimOrder(
  client: pg.PoolClient,
  input: ClaimCandidate & { orderId: string; cancelled?: boolean },
): Promise<ClaimVerdict<OrderClaim>> {
  const { orderId, ...candidate } = input;
  return verdictOf(
    await claimEntity(client, { domain: ORDERS_DOMAIN, entityId: orderId, ...candidate }),
  );
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
 * Records how the order ended, on the owner's claim only. A rejected order reserved nothing,
 * so it has no claim yet (out of stock rolled it back with the reservation): its rejection
 * creates one, so that a re-read of the same OrderPlaced after every other memory expired
 * finds the order decided instead of fulfilling it now.
 */
export async function settleOrderClaim(
  db: Db,
  input: SettleOrderClaimInput,
): Promise<SettleOrderClaimResult> {
  const { orderId, ...rest } = input;
  const done = await settleClaim(db, {
    domain: ORDERS_DOMAIN,
    entityId: orderId,
    ...rest,
    createIfAbsent: input.settled === 'rejected',
  });
  return done.claim
    ? { settled: done.settled, claim: orderClaimOf(done.claim) }
    : { settled: done.settled };
}

/** The claim of an order, if any; `lock` takes its row lock (inside a transaction). */
export async function findOrderClaim(
  db: Db,
  orderId: string,
  options: { lock?: boolean } = {},
): Promise<OrderClaim | undefined> {
  const claim = await findClaim(db, { domain: ORDERS_DOMAIN, entityId: orderId }, options);
  return claim && orderClaimOf(claim);
}

/** Claims of orders (by ID prefix), for reconcile: the owner of every order in one query. */
export async function listOrderClaims(
  db: Db,
  options: ListClaimsOptions = {},
): Promise<OrderClaim[]> {
  return (await listClaims(db, ORDERS_DOMAIN, options)).map(orderClaimOf);
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
