import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type pg from 'pg';
import { createLedgerStore } from '../db/ledger-store';
import type { OrderClaim } from '../domains/orders/workflows/order-claim';
import { listOrderClaims } from '../domains/orders/order-claim-store';
import { listClaims } from '../db/entity-claim-store';
import type { EntityClaim } from '../db/entity-claim';
import { PAYOUTS_DOMAIN } from '../domains/payouts/workflows/payout-names';
import { CARTS_DOMAIN } from '../domains/carts/workflows/cart-names';
import type { Kafka } from 'kafkajs';
import { randomBytes } from 'node:crypto';
import { firstHeaderText } from '../events/headers';
import { HEADER } from '../events/envelope';
import { readTopicsToEnd } from '../kafka/topic-reader';
import { qualifyTable } from '../config/schema-name';
import { runLimited } from '../util/run-limited';
import { SEARCH_ATTRIBUTE, visibility } from '../temporal/search-attributes';
import { runStepOf } from '../temporal/run-step';
import type { LedgerEntry, OrderEffects, ReservationFacts, WorkflowFacts } from './facts';
import { adminHeaders } from './provider-ledger';

/** A source reconcile reads from failed; names the source, keeps the cause. */
export class ReconcileSourceError extends Error {
  override readonly name = 'ReconcileSourceError';
  constructor(
    readonly source: string,
    cause: unknown,
  ) {
    super(`reading ${source} failed: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

/** Ledger rows whose aggregate ID starts with `prefix` ('' = all). */
export async function readLedgerEntries(
  pool: pg.Pool,
  schema: string,
  prefix: string,
): Promise<LedgerEntry[]> {
  try {
    return await createLedgerStore(pool, { schema }).listByAggregatePrefix(prefix);
  } catch (err) {
    throw new ReconcileSourceError(`the ledger (${schema}.processed_events)`, err);
  }
}

/**
 * Order claims of orders whose ID starts with `prefix` ('' = all): each order's OWNER, the run
 * whose outcome says what happened to the order (the same owner the cancellation workflow and
 * `orders cancel` use, through src/db/order-claim-store.ts). Other runs of the order ended as
 * duplicates or order conflicts and acted on nothing.
 */
export async function readOrderClaims(
  pool: pg.Pool,
  schema: string,
  prefix: string,
): Promise<OrderClaim[]> {
  try {
    return await listOrderClaims(pool, { schema, prefix });
  } catch (err) {
    throw new ReconcileSourceError(`order claims (${schema}.order_claims)`, err);
  }
}

/** Payout claims of payouts whose ID starts with `prefix` ('' = all): each payout's owner. */
export async function readPayoutClaims(
  pool: pg.Pool,
  schema: string,
  prefix: string,
): Promise<EntityClaim[]> {
  try {
    return await listClaims(pool, PAYOUTS_DOMAIN, { schema, prefix });
  } catch (err) {
    throw new ReconcileSourceError(`payout claims (${schema}.entity_claims)`, err);
  }
}

/** Cart claims of carts whose ID starts with `prefix` ('' = all): each cart's owner. */
export async function readCartClaims(
  pool: pg.Pool,
  schema: string,
  prefix: string,
): Promise<EntityClaim[]> {
  try {
    return await listClaims(pool, CARTS_DOMAIN, { schema, prefix });
  } catch (err) {
    throw new ReconcileSourceError(`cart claims (${schema}.entity_claims)`, err);
  }
}

/**
 * The distinct event IDs of the events a domain published to `topic` (the engine's publishing
 * step: the record key is the entity, the event ID its step's key), by entity, for the
 * entities whose ID starts with `prefix`. A record repeated by a retried step is one event.
 */
export async function readPublishedEventIds(
  kafka: Kafka,
  topic: string,
  prefix: string,
  timeoutMs?: number,
): Promise<Map<string, string[]>> {
  const byEntity = new Map<string, Set<string>>();
  try {
    await readTopicsToEnd(
      kafka,
      [topic],
      (_topic, _partition, message) => {
        const entityId = message.key?.toString();
        const eventId = firstHeaderText(message.headers, HEADER.eventId);
        if (entityId === undefined || !entityId.startsWith(prefix) || eventId === undefined) return;
        const ids = byEntity.get(entityId) ?? new Set<string>();
        byEntity.set(entityId, ids.add(eventId));
      },
      {
        groupId: `onceflow-reconcile-published-${randomBytes(4).toString('hex')}`,
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      },
    );
  } catch (err) {
    throw new ReconcileSourceError(`the published events on ${topic}`, err);
  }
  return new Map([...byEntity].map(([id, ids]) => [id, [...ids]]));
}

/** Inventory reservations of orders whose ID starts with `prefix` ('' = all). */
export async function readReservations(
  pool: pg.Pool,
  schema: string,
  prefix: string,
): Promise<ReservationFacts[]> {
  try {
    const { rows } = await pool.query<{
      key: string;
      order_id: string;
      status: 'reserved' | 'released';
    }>(
      `SELECT key, order_id, status FROM ${qualifyTable(schema, 'inventory_reservations')}
        WHERE left(order_id, length($1)) = $1`,
      [prefix],
    );
    return rows.map((r) => ({ key: r.key, orderId: r.order_id, status: r.status }));
  } catch (err) {
    throw new ReconcileSourceError(`inventory (${schema}.inventory_reservations)`, err);
  }
}

/** Options of readWorkflows. */
export interface ReadWorkflowsOptions {
  /** OrderId prefix ('' = every workflow of `workflowTypes` in the namespace). */
  prefix: string;
  /** Workflow types the routes start; others are not the bridge's. */
  workflowTypes: ReadonlySet<string>;
  /** Describe calls in flight at once, for runs listed without a memo. Default: 16. */
  concurrency?: number;
}

function memoIdentity(memo: Record<string, unknown> | undefined): string | undefined {
  const identity = memo?.identity;
  return typeof identity === 'string' ? identity : undefined;
}

function toWorkflowFacts(info: WorkflowExecutionInfo): WorkflowFacts {
  const orderId = info.typedSearchAttributes.get(SEARCH_ATTRIBUTE.entityId);
  const step = runStepOf(info);
  const identity = memoIdentity(info.memo);
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    type: info.type,
    status: info.status.name,
    startTime: info.startTime,
    ...(orderId !== undefined ? { orderId } : {}),
    ...(step !== undefined ? { step } : {}),
    ...(identity !== undefined ? { identity } : {}),
  };
}

/**
 * Workflows from Temporal visibility with status, OrderStep and start time; the memo identity
 * comes with the listing, and a describe fills it in where the listing left it out.
 */
export async function readWorkflows(
  client: Client,
  options: ReadWorkflowsOptions,
): Promise<WorkflowFacts[]> {
  // The CLI rejects prefixes visibility cannot carry; quoteVisibilityValue refuses them too.
  const query = options.prefix
    ? visibility.startsWith(SEARCH_ATTRIBUTE.entityId, options.prefix)
    : undefined;
  const out: WorkflowFacts[] = [];
  try {
    for await (const info of client.workflow.list(query ? { query } : {})) {
      if (options.workflowTypes.has(info.type)) out.push(toWorkflowFacts(info));
    }
    const tasks = out
      .filter((w) => w.identity === undefined)
      .map((w) => async () => {
        const described = await client.workflow.getHandle(w.workflowId, w.runId).describe();
        const identity = memoIdentity(await described.memo);
        if (identity !== undefined) w.identity = identity;
      });
    await runLimited(tasks, options.concurrency ?? 16);
    return out;
  } catch (err) {
    throw new ReconcileSourceError(`Temporal visibility${query ? ` (${query})` : ''}`, err);
  }
}

/** Options of readOrderEffects. */
export interface ReadOrderEffectsOptions {
  /** Base URL of the providers (config.providers.url). */
  providersUrl: string;
  /** Bearer token of the admin API (config.providers.adminToken). */
  adminToken?: string;
  /** Admin requests in flight at once. Default: 16. */
  concurrency?: number;
}

/** The providers' ledgers (charges, refunds, emails, holds, shipments) per order, from GET /admin/ledger. */
export async function readOrderEffects(
  orderIds: Iterable<string>,
  options: ReadOrderEffectsOptions,
): Promise<Map<string, OrderEffects>> {
  const effects = new Map<string, OrderEffects>();
  const tasks = [...orderIds].map((orderId) => async () => {
    const url = `${options.providersUrl}/admin/ledger?orderId=${encodeURIComponent(orderId)}`;
    let res: Response;
    try {
      res = await fetch(url, { headers: adminHeaders(options.adminToken) });
    } catch (err) {
      // Unreachable, most often because nobody runs them: the demo stops its own when it ends.
      throw new ReconcileSourceError(
        `the providers' ledger at ${url} (are the providers running? \`npm run providers\`)`,
        err,
      );
    }
    if (!res.ok)
      throw new ReconcileSourceError(`the providers' ledger at ${url}`, `HTTP ${res.status}`);
    const view = (await res.json()) as OrderEffects;
    const rows =
      view.charges.length +
      view.refunds.length +
      view.emails.length +
      (view.holds?.length ?? 0) +
      (view.shipments?.length ?? 0);
    if (rows > 0) effects.set(orderId, view);
  });
  await runLimited(tasks, options.concurrency ?? 16);
  return effects;
}
