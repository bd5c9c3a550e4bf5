import type pg from 'pg';
import type { ClaimCandidate, ClaimVerdict } from '../../../db/entity-claim';
import type { OrderClaim, SettledState } from '../workflows/order-claim';
import { claimOrder, findOrderClaim, settleOrderClaim } from '../order-claim-store';
import {
  findReservation,
  insertReservation,
  lockReservationsOfOrder,
  markReleased,
  type ReservedLine,
} from './reservation-store';
import { stepKeys } from '../workflows/order-definitions';
import { readStock, returnStock, takeStock } from './stock-store';

/** Not enough units of a SKU for a reservation; nothing was taken. */
export class OutOfStockError extends Error {
  override readonly name = 'OutOfStockError';
  constructor(
    readonly sku: string,
    readonly requested: number,
    readonly available: number,
    readonly reservationKey: string,
  ) {
    super(`out of stock: ${sku} requested ${requested}, available ${available}`);
  }
}

/** A reservation made (or found) by the order's owner. */
export interface ReservedResult {
  verdict: 'owner';
  reservationKey: string;
  items: ReservedLine[];
  /** True when this call found the reservation already made (a repeat). */
  repeated: boolean;
  /**
   * Set when the owner's own chain asked after the order had settled (a Temporal reset): how
   * it had ended. Its steps run again with the order's keys; the claim says so (reopened_at).
   */
  reopened?: { settled: SettledState; settledAt: string };
}

/** Another run owns the order: nothing was reserved or claimed by this call. */
export interface NotOwnerResult {
  verdict: 'duplicate' | 'order-conflict';
  owner: OrderClaim;
}

export type ReserveResult = ReservedResult | NotOwnerResult;

/** The run asking (it becomes the order's owner if nobody is) and what it reserves. */
export interface ReserveInput extends ClaimCandidate {
  /** The reservation's idempotency key (`order:<orderId>:reserve`). */
  key: string;
  orderId: string;
  items: ReservedLine[];
}

export interface ReleaseResult {
  /** False when there was nothing to release (no reservation under that key). */
  released: boolean;
  /** True when the reservation had been released before (by this or another key). */
  repeated: boolean;
  /** Set when the order belongs to another run than `ownerWorkflowId`: nothing was done. */
  notOwner?: string;
  /** With `settle`: whether the owner's claim now records the settlement. */
  settled?: boolean;
}

/** Input of releaseStock. */
export interface ReleaseInput {
  key: string;
  reservationKey: string;
  /** Release only on behalf of this run's order (or when nobody has claimed it). */
  ownerWorkflowId?: string;
  /**
   * Records on the owner's claim, in the release's transaction, how the order ended (the
   * cancellation workflow: `refunded`), so the settlement costs no statement of its own.
   */
  settle?: { settled: SettledState; runId?: string };
}

/** Merges lines per SKU and sorts them, so concurrent reservations lock rows in one order. */
function normaliseLines(items: ReservedLine[]): ReservedLine[] {
  const bySku = new Map<string, number>();
  for (const l of items) bySku.set(l.sku, (bySku.get(l.sku) ?? 0) + l.quantity);
  return [...bySku.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([sku, quantity]) => ({ sku, quantity }));
}

/**
 * Another run's verdict as the reserve result has always said it (`order-conflict`, not the
 * engine's `conflict`): workflows read recorded results of both ages.
 */
function notOwner(verdict: ClaimVerdict<OrderClaim>): NotOwnerResult | undefined {
  if (verdict.kind === 'owner') return undefined;
  return {
    verdict: verdict.kind === 'duplicate' ? 'duplicate' : 'order-conflict',
    owner: verdict.claim,
  };
}

/**
 * Claims the order and reserves every line, or does neither, in one transaction with the
 * reservation row. The claim is the order's unit of effects: a run that finds another run
 * owning the order gets a `duplicate` / `order-conflict` verdict and nothing is touched; the
 * owner repeating its call (retry, replay, crash) gets the first result without touching
 * stock. Out of stock rolls the claim back with the rest: a rejected order owns nothing.
 */
export async function reserveStock(pool: pg.Pool, input: ReserveInput): Promise<ReserveResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await reserveInTransaction(client, input);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * The statements of `reserveStock` on a client already inside a transaction that the caller
 * commits, or rolls back when this throws (`OutOfStockError` included: the claim and any
 * stock taken must go with it). For runtimes that own the transaction themselves (a DBOS
 * datasource transaction in harness/bench/peers).
 */
export async function reserveInTransaction(
  client: pg.PoolClient,
  input: ReserveInput,
): Promise<ReserveResult> {
  const items = normaliseLines(input.items);
  const verdict = await claimOrder(client, input);
  const other = notOwner(verdict);
  if (other) return other;
  const reopened =
    verdict.kind === 'owner' && verdict.reopened
      ? { reopened: verdict.reopened as ReservedResult['reopened'] }
      : {};
  if (!(await insertReservation(client, { key: input.key, orderId: input.orderId, items }))) {
    const first = await findReservation(client, input.key);
    return {
      verdict: 'owner',
      reservationKey: input.key,
      items: first?.items ?? items,
      repeated: true,
      ...reopened,
    };
  }
  for (const line of items) {
    if (!(await takeStock(client, line.sku, line.quantity))) {
      const available = await readStock(client, line.sku);
      throw new OutOfStockError(line.sku, line.quantity, available, input.key);
    }
  }
  return { verdict: 'owner', reservationKey: input.key, items, repeated: false, ...reopened };
}

/**
 * Releases a reservation and returns its units, in one transaction. The row lock and the
 * status make it act once, whichever key (release, cancellation) asks first. With
 * `ownerWorkflowId`, only on behalf of the order's owner: a run that never owned the order
 * (a duplicate cancelled while its reserve was in doubt) must not release the owner's stock.
 * With `settle`, the owner's claim records the settlement in the same transaction.
 */
export async function releaseStock(pool: pg.Pool, input: ReleaseInput): Promise<ReleaseResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const reservation = await findReservation(client, input.reservationKey, { lock: true });
    const claim = reservation && (await findOrderClaim(client, reservation.orderId));
    if (input.ownerWorkflowId && claim && claim.workflowId !== input.ownerWorkflowId) {
      await client.query('COMMIT');
      return { released: false, repeated: false, notOwner: claim.workflowId };
    }
    const settle = async (): Promise<{ settled?: boolean }> => {
      if (!input.settle || !claim) return {};
      const done = await settleOrderClaim(client, {
        orderId: claim.orderId,
        workflowId: claim.workflowId,
        runId: input.settle.runId,
        fingerprint: claim.fingerprint,
        settled: input.settle.settled,
      });
      return { settled: done.settled };
    };
    if (!reservation || reservation.status === 'released') {
      const settled = await settle();
      await client.query('COMMIT');
      return {
        released: reservation !== undefined,
        repeated: reservation !== undefined,
        ...settled,
      };
    }
    for (const line of reservation.items) await returnStock(client, line.sku, line.quantity);
    await markReleased(client, input.reservationKey, input.key);
    const settled = await settle();
    await client.query('COMMIT');
    return { released: true, repeated: false, ...settled };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * A run cancelled before it reserved claims the order as cancelled, so a later run for the
 * order (a re-send) ends as a duplicate instead of reserving and charging a cancelled order.
 * When another run already owns the order, its claim is returned: the cancellation belongs
 * to that owner. When the run's own reserve had committed unrecorded, its stock is returned.
 */
export async function claimCancelledOrder(
  pool: pg.Pool,
  input: ClaimCandidate & { orderId: string },
): Promise<ClaimVerdict<OrderClaim>> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const verdict = await claimOrder(client, { ...input, cancelled: true });
    // The run's own claim, not written as cancelled: an earlier attempt of its reserve
    // committed (claim and reservation) but the workflow task that would have recorded it was
    // lost (a worker killed mid-task, a task timeout). Cancelled before it retried the
    // reserve, the run has nothing on its compensation stack and would settle `cancelled`
    // with the stock still taken: release it here, with the claim, under the release key.
    if (verdict.kind === 'owner' && verdict.claim.cancelledAt === undefined) {
      for (const r of await lockReservationsOfOrder(client, input.orderId)) {
        if (r.status !== 'reserved') continue;
        for (const line of r.items) await returnStock(client, line.sku, line.quantity);
        await markReleased(client, r.key, stepKeys(input.orderId).release);
      }
    }
    await client.query('COMMIT');
    return verdict;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
