/**
 * `npx onceflow orders list|retry|resolve|cancel`: the order commands beside `show`
 * (order-show.ts).
 */
import { parseArgs } from 'node:util';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import { workflowListUrl } from '../temporal/ui-links';
import { cancelOrderSignal } from '../domains/orders/workflows/order-definitions';
import { REQUEST_OPTIONS, requestOf, sendOperatorRequest } from './operator-request';
import type { OpsContext } from './context';
import { operatorActionOf } from './operator-action';
import { ACTIONABLE_STEPS } from './signal-outcomes';
import { cancelClosed, UNFINISHED_STATUSES } from './closed-run';
import { ORDERS_DOMAIN } from '../domains/orders/workflows/order-claim';
import {
  buildOrderQuery,
  findOrderRun,
  LIST_STATUSES,
  listExecutions,
  type ListStatus,
} from './order-lookup';
import { runStepOf } from '../temporal/run-step';
import {
  formatTable,
  InvalidStateError,
  parseDuration,
  parsePositiveInt,
  positional,
  UsageError,
  type CommandResult,
} from './output';

/** `orders list [--step S] [--status running|failed|completed] [--older-than 10m] [--limit N]` */
export async function listOrders(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { values } = parseArgs({
    args: argv,
    options: {
      step: { type: 'string' },
      status: { type: 'string' },
      'older-than': { type: 'string' },
      prefix: { type: 'string' },
      limit: { type: 'string' },
    },
    strict: true,
  });
  const status = values.status;
  if (status !== undefined && !(status in LIST_STATUSES)) {
    throw new UsageError(`--status must be one of ${Object.keys(LIST_STATUSES).join(', ')}`);
  }
  const olderThan = values['older-than'];
  const query = buildOrderQuery({
    step: values.step,
    status: status as ListStatus | undefined,
    orderIdPrefix: values.prefix,
    startedBefore: olderThan
      ? new Date(Date.now() - parseDuration(olderThan, '--older-than'))
      : undefined,
  });
  const limit = parsePositiveInt(values.limit, '--limit', 100);
  const infos = await listExecutions(await ctx.temporal(), query, limit);
  const { uiUrl, namespace } = ctx.config.temporal;
  const orders = infos.map((i) => ({
    orderId: i.typedSearchAttributes.get(SEARCH_ATTRIBUTE.entityId),
    customerId: i.typedSearchAttributes.get(SEARCH_ATTRIBUTE.customerId),
    step: runStepOf(i),
    status: i.status.name,
    workflowId: i.workflowId,
    runId: i.runId,
    startTime: i.startTime.toISOString(),
    closeTime: i.closeTime?.toISOString(),
  }));
  const listUrl = workflowListUrl(uiUrl, namespace, query);
  return {
    json: { query, count: orders.length, uiUrl: listUrl, orders },
    human: [
      formatTable(
        ['ORDER', 'STEP', 'STATUS', 'STARTED', 'CUSTOMER', 'WORKFLOW'],
        orders.map((o) => [o.orderId, o.step, o.status, o.startTime, o.customerId, o.workflowId]),
      ),
      `${orders.length} order(s) · query: ${query}`,
      `Web UI: ${listUrl}`,
    ].join('\n'),
  };
}

type OrderSignal = 'retry' | 'resolve' | 'cancel';

/** `orders retry|resolve|cancel <orderId> [--reason R] [--by B]`: the operator signals. */
export async function signalOrder(
  ctx: OpsContext,
  action: OrderSignal,
  argv: string[],
): Promise<CommandResult> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { reason: { type: 'string' }, by: { type: 'string' }, ...REQUEST_OPTIONS },
    strict: true,
  });
  const orderId = positional(positionals, 'order ID');
  const operator = operatorActionOf({ by: values.by, reason: values.reason });
  const client = await ctx.temporal();
  const run = await findOrderRun(client, ctx.db(), orderId);
  const handle = client.workflow.getHandle(run.workflowId, run.runId);
  const described = await handle.describe();
  if (action === 'cancel' && UNFINISHED_STATUSES.includes(described.status.name))
    return cancelClosed(
      ctx,
      { name: ORDERS_DOMAIN, entity: 'order' },
      { ...run, entityId: orderId },
      described.status.name,
      operator,
    );
  if (described.status.name !== 'RUNNING') {
    throw new InvalidStateError(
      `order ${orderId} is ${described.status.name}, not running` +
        (action === 'cancel'
          ? '; publish an OrderCancelled event to compensate a closed order'
          : ''),
    );
  }
  const step = runStepOf(described);
  // retry/resolve only mean something to a parked or waiting step; the workflow would ignore
  // them, so say so instead of reporting a success that changed nothing.
  if (action !== 'cancel' && !ACTIONABLE_STEPS.includes(step ?? '')) {
    throw new InvalidStateError(
      `order ${orderId} is at step ${step ?? '?'}, not ${ACTIONABLE_STEPS.join(' or ')}`,
    );
  }
  if (action !== 'cancel') {
    const request = requestOf(action, operator, values);
    const sent = await sendOperatorRequest(handle, action, request);
    return {
      json: { ...run, action, ...sent, stepBefore: step, operatorAction: request },
      human: `${action} taken by ${run.workflowId} (order ${orderId}, ${sent.steps ? `for ${sent.steps.join(', ')}` : `step ${step}, as a signal`}) as ${operator.by}`,
    };
  }
  // By name: the payload is the contract's CancelRequest (who, why, when); cancelOrder keeps
  // its `reason` field.
  const signal = cancelOrderSignal.name;
  const reason = operator.reason ?? 'operator cancel via onceflow CLI';
  await handle.signal(signal, { ...operator, reason });
  return {
    json: { ...run, signal, stepBefore: step, operatorAction: operator, reason },
    human: `sent ${signal} to ${run.workflowId} (order ${orderId}, step ${step}) as ${operator.by}`,
  };
}
