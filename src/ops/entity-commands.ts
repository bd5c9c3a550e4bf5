/**
 * `npx onceflow <domain> list|retry|resolve|cancel` for every registered domain but orders
 * (whose commands add its reservation and provider ledger: orders-commands.ts); `show` is
 * entity-show.ts. Built only on what the engine gives every saga: the EntityId and Step search
 * attributes, the entity's claim, the memo `attention`, the status query and the operator
 * signals.
 */
import { parseArgs } from 'node:util';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type pg from 'pg';
import { findClaim } from '../db/entity-claim-store';
import type { EntityClaim } from '../db/entity-claim';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import { workflowListUrl } from '../temporal/ui-links';
import { REQUEST_OPTIONS, requestOf, sendOperatorRequest } from './operator-request';
import type { OpsContext } from './context';
import type { OpsDomain } from './ops-domain';
import { operatorActionOf } from './operator-action';
import { buildRunQuery, LIST_STATUSES, listExecutions, type ListStatus } from './order-lookup';
import { runStepOf } from '../temporal/run-step';
import { ACTIONABLE_STEPS } from './signal-outcomes';
import { cancelClosed, UNFINISHED_STATUSES } from './closed-run';
import { checkPrefix } from './bulk-selection';
import {
  formatTable,
  InvalidStateError,
  NotFoundError,
  parseDuration,
  parsePositiveInt,
  positional,
  UsageError,
  type CommandResult,
} from './output';

/** `<domain> list [--step S] [--status running|failed|completed] [--older-than 10m] [--prefix P] [--limit N]` */
export async function listEntities(
  ctx: OpsContext,
  domain: OpsDomain,
  argv: string[],
): Promise<CommandResult> {
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
  checkPrefix(values.prefix);
  const olderThan = values['older-than'];
  const query = buildRunQuery(domain.workflowType, {
    step: values.step,
    status: status as ListStatus | undefined,
    entityIdPrefix: values.prefix,
    startedBefore: olderThan
      ? new Date(Date.now() - parseDuration(olderThan, '--older-than'))
      : undefined,
  });
  const limit = parsePositiveInt(values.limit, '--limit', 100);
  const infos = await listExecutions(await ctx.temporal(), query, limit);
  const { uiUrl, namespace } = ctx.config.temporal;
  const runs = infos.map((i) => ({
    entityId: i.typedSearchAttributes.get(SEARCH_ATTRIBUTE.entityId),
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
    json: { domain: domain.name, query, count: runs.length, uiUrl: listUrl, runs },
    human: [
      formatTable(
        [domain.entity.toUpperCase(), 'STEP', 'STATUS', 'STARTED', 'CUSTOMER', 'WORKFLOW'],
        runs.map((r) => [r.entityId, r.step, r.status, r.startTime, r.customerId, r.workflowId]),
      ),
      `${runs.length} ${domain.entity}(s) · query: ${query}`,
      `Web UI: ${listUrl}`,
    ].join('\n'),
  };
}

/** One entity's run: where to signal, query and link to. */
export interface EntityRun {
  entityId: string;
  workflowId: string;
  runId: string;
  /** `claim`: the entity's owner; `visibility`: the newest run (nothing claimed it yet). */
  foundBy: 'claim' | 'visibility';
}

/**
 * The entity's run: its OWNER (the claim every saga writes before it acts), so `cancel`
 * signals the run a cancellation event would; before any claim, the newest run of the
 * domain's workflow in visibility.
 */
export async function findEntityRun(
  client: Client,
  db: pg.Pool,
  domain: OpsDomain,
  entityId: string,
): Promise<{ run?: EntityRun; claim?: EntityClaim }> {
  const claim = await findClaim(db, { domain: domain.name, entityId });
  if (claim) {
    const described = await client.workflow
      .getHandle(claim.workflowId)
      .describe()
      .catch((err: unknown) => {
        // Past Temporal's retention the run is gone while the claim stays.
        if (err instanceof WorkflowNotFoundError) return undefined;
        throw err;
      });
    if (!described) return { claim };
    const run = { entityId, workflowId: claim.workflowId, runId: described.runId };
    return { run: { ...run, foundBy: 'claim' }, claim };
  }
  const [latest] = await listExecutions(
    client,
    buildRunQuery(domain.workflowType, { entityId }),
    1,
  );
  if (!latest) return {};
  return {
    run: { entityId, workflowId: latest.workflowId, runId: latest.runId, foundBy: 'visibility' },
  };
}

/** The run to act on, or NotFoundError naming what is known of the entity. */
async function requireRun(ctx: OpsContext, domain: OpsDomain, entityId: string) {
  const found = await findEntityRun(await ctx.temporal(), ctx.db(), domain, entityId);
  if (found.run) return found.run;
  if (found.claim)
    throw new NotFoundError(
      `${domain.entity} ${entityId} is owned by workflow ${found.claim.workflowId}, which Temporal no longer has (retention)`,
    );
  throw new NotFoundError(`no ${domain.entity} ${entityId}`);
}

/** `<domain> retry|resolve|cancel <id> [--reason R] [--by B]`: the operator signals. */
export async function signalEntity(
  ctx: OpsContext,
  domain: OpsDomain,
  action: 'retry' | 'resolve' | 'cancel',
  argv: string[],
): Promise<CommandResult> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { reason: { type: 'string' }, by: { type: 'string' }, ...REQUEST_OPTIONS },
    strict: true,
  });
  const entityId = positional(positionals, `${domain.entity} ID`);
  const operator = operatorActionOf({ by: values.by, reason: values.reason });
  const run = await requireRun(ctx, domain, entityId);
  const handle = (await ctx.temporal()).workflow.getHandle(run.workflowId, run.runId);
  const described = await handle.describe();
  if (action === 'cancel' && UNFINISHED_STATUSES.includes(described.status.name))
    return cancelClosed(ctx, domain, run, described.status.name, operator);
  if (described.status.name !== 'RUNNING')
    throw new InvalidStateError(
      `${domain.entity} ${entityId} is ${described.status.name}, not running`,
    );
  const step = runStepOf(described);
  // retry/resolve mean something only to a parked or waiting step; the workflow would ignore them.
  if (action !== 'cancel' && !ACTIONABLE_STEPS.includes(step ?? ''))
    throw new InvalidStateError(
      `${domain.entity} ${entityId} is at step ${step ?? '?'}, not ${ACTIONABLE_STEPS.join(' or ')}`,
    );
  if (action !== 'cancel') {
    const request = requestOf(action, operator, values);
    const sent = await sendOperatorRequest(handle, action, request);
    return {
      json: {
        domain: domain.name,
        ...run,
        action,
        ...sent,
        stepBefore: step,
        operatorAction: request,
      },
      human: `${action} taken by ${run.workflowId} (${domain.entity} ${entityId}, ${sent.steps ? `for ${sent.steps.join(', ')}` : `step ${step}, as a signal`}) as ${operator.by}`,
    };
  }
  // A cancellation's payload is the saga's CancelRequest: `reason` is required there.
  const signal = domain.cancelSignal;
  const reason = operator.reason ?? 'operator cancel via onceflow CLI';
  await handle.signal(signal, { ...operator, reason });
  return {
    json: {
      domain: domain.name,
      ...run,
      signal,
      stepBefore: step,
      operatorAction: operator,
      reason,
    },
    human: `sent ${signal} to ${run.workflowId} (${domain.entity} ${entityId}, step ${step}) as ${operator.by}`,
  };
}
