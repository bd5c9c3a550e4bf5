import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import type pg from 'pg';
import { findOrderOwner } from '../domains/orders/order-claim-store';
import { EVENT_TYPES } from '../domains/orders/order-events';
import { deriveWorkflowId, versionIdentity } from '../events/identity';
import { SEARCH_ATTRIBUTE, SYSTEM_ATTRIBUTE, visibility } from '../temporal/search-attributes';
import { stepTerm } from '../temporal/run-step';
import { WORKFLOW_TYPE } from '../domains/orders/workflows/workflow-types';
import { NotFoundError } from './output';

/** Execution statuses `orders list --status` accepts, as visibility spells them. */
export const LIST_STATUSES = {
  running: 'Running',
  failed: 'Failed',
  completed: 'Completed',
} as const;

export type ListStatus = keyof typeof LIST_STATUSES;

/** Filters of `orders list`. */
export interface OrderFilter {
  /** Step value, e.g. `needs_attention`. */
  step?: string;
  status?: ListStatus;
  /** Only orders started before this instant. */
  startedBefore?: Date;
  orderId?: string;
  /** Only orders whose ID starts with this (visibility's STARTS_WITH). */
  orderIdPrefix?: string;
}

/** The visibility query of a filter; the same string works in the Web UI's search box. */
export function buildOrderQuery(filter: OrderFilter): string {
  return buildRunQuery(WORKFLOW_TYPE.orderFulfillment, {
    ...filter,
    entityId: filter.orderId,
    entityIdPrefix: filter.orderIdPrefix,
  });
}

/** Filters of `<domain> list`: a domain's runs of one workflow type. */
export interface RunFilter {
  step?: string;
  status?: ListStatus;
  startedBefore?: Date;
  /** The EntityId search attribute's value. */
  entityId?: string;
  /** Only entities whose ID starts with this (visibility's STARTS_WITH). */
  entityIdPrefix?: string;
}

/** The visibility query of a domain's runs of `workflowType` (every domain's attributes). */
export function buildRunQuery(workflowType: string, filter: RunFilter): string {
  return visibility.allOf(
    visibility.equals(SYSTEM_ATTRIBUTE.workflowType, workflowType),
    filter.entityId && visibility.equals(SEARCH_ATTRIBUTE.entityId, filter.entityId),
    filter.entityIdPrefix &&
      visibility.startsWith(SEARCH_ATTRIBUTE.entityId, filter.entityIdPrefix),
    filter.step && stepTerm(filter.step),
    filter.status &&
      visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, LIST_STATUSES[filter.status]),
    filter.startedBefore && visibility.before(SYSTEM_ATTRIBUTE.startTime, filter.startedBefore),
  );
}

/** Runs a visibility query; at most `limit` executions, newest first (the server's order). */
export async function listExecutions(
  client: Client,
  query: string,
  limit: number,
): Promise<WorkflowExecutionInfo[]> {
  const out: WorkflowExecutionInfo[] = [];
  if (limit <= 0) return out;
  for await (const info of client.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
    out.push(info);
    if (out.length >= limit) break;
  }
  return out;
}

/** One order's run: where to signal, query and link to. */
export interface OrderRun {
  orderId: string;
  workflowId: string;
  runId: string;
  /**
   * How the run was found: `claim` (the order's owner), `ledger` (not claimed yet: the first
   * OrderPlaced run), or, when our database knows nothing of the order (a run started by
   * hand), `visibility` (the newest run) or `derived-id` (the ID the bridge gives `<id>@1`).
   */
  foundBy: 'claim' | 'ledger' | 'visibility' | 'derived-id';
}

/**
 * Finds an order's fulfillment run: its OWNER through findOrderOwner (the claim, else the
 * ledger), the same lookup the cancellation workflow and reconcile use, so `orders cancel`
 * signals the run an OrderCancelled event would. Only when neither knows the order: the
 * newest run in visibility, else the workflow ID the bridge derives for `<orderId>@1`
 * (which also works in the seconds before visibility has indexed a fresh start).
 */
export async function findOrderRun(
  client: Client,
  db: pg.Pool,
  orderId: string,
): Promise<OrderRun> {
  const owner = await findOrderOwner(db, orderId);
  if (owner) {
    const described = await client.workflow
      .getHandle(owner.workflowId)
      .describe()
      .catch((err: unknown) => {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
        // Past Temporal's retention the run is gone while the claim stays.
        throw new NotFoundError(
          `order ${orderId} is owned by workflow ${owner.workflowId}, which Temporal no longer has (retention); an OrderCancelled event still compensates it`,
        );
      });
    return {
      orderId,
      workflowId: owner.workflowId,
      runId: described.runId,
      foundBy: owner.foundBy,
    };
  }
  const [latest] = await listExecutions(client, buildOrderQuery({ orderId }), 1);
  if (latest) {
    return { orderId, workflowId: latest.workflowId, runId: latest.runId, foundBy: 'visibility' };
  }
  const workflowId = deriveWorkflowId(EVENT_TYPES.orderPlaced, versionIdentity(orderId, 1));
  try {
    const described = await client.workflow.getHandle(workflowId).describe();
    return { orderId, workflowId, runId: described.runId, foundBy: 'derived-id' };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new NotFoundError(`no order ${orderId}`);
    throw err;
  }
}
