/**
 * `npx onceflow <domain> list|show|retry|resolve|cancel` for every registered domain but
 * orders (whose commands add its reservation and provider ledger: orders-commands.ts). Built
 * only on what the engine gives every saga: the EntityId and Step search attributes, the
 * entity's claim, the memo `attention`, the status query and the operator signals.
 */
import { parseArgs } from 'node:util';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type pg from 'pg';
import { findClaim } from '../db/entity-claim-store';
import type { EntityClaim } from '../db/entity-claim';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import { workflowListUrl, workflowUrl } from '../temporal/ui-links';
import { shellCommand } from '../util/shell-quote';
import {
  resolveStepSignal,
  retryStepSignal,
  type SagaResult,
  type SagaStatus,
} from '../workflows/saga-status';
import type { OpsContext } from './context';
import type { OpsDomain } from './ops-domain';
import { operatorActionOf } from './operator-action';
import { operatorActionLines, readOperatorActions } from './operator-history';
import { attentionLine, attentionOf, plainOfMarkdown } from './order-attention';
import {
  buildRunQuery,
  LIST_STATUSES,
  listExecutions,
  stepOf,
  type ListStatus,
} from './order-lookup';
import { nextCommandsOf } from './orders-commands';
import { queryStatus } from './order-status';
import { ACTIONABLE_STEPS } from './signal-outcomes';
import { cancelClosed, UNFINISHED_STATUSES, unfinishedLine } from './closed-run';
import { checkPrefix } from './bulk-selection';
import {
  formatFields,
  formatTable,
  InvalidStateError,
  NotFoundError,
  parseDuration,
  parsePositiveInt,
  UsageError,
  type CommandResult,
} from './output';

function positional(args: string[], name: string): string {
  if (args.length !== 1) throw new UsageError(`expected exactly one ${name}`);
  return args[0]!;
}

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
    step: stepOf(i),
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

/** `<domain> show <id>`: status, step, why it waits or is parked, actions, keys, the link. */
export async function showEntity(
  ctx: OpsContext,
  domain: OpsDomain,
  argv: string[],
): Promise<CommandResult> {
  const { positionals } = parseArgs({ args: argv, allowPositionals: true, strict: true });
  const entityId = positional(positionals, `${domain.entity} ID`);
  const client = await ctx.temporal();
  const { run, claim } = await findEntityRun(client, ctx.db(), domain, entityId);
  if (!run && !claim) throw new NotFoundError(`no ${domain.entity} ${entityId}`);
  const handle = run && client.workflow.getHandle(run.workflowId, run.runId);
  const described = await handle?.describe();
  const running = described?.status.name === 'RUNNING';
  // A run that closed unfinished or cancelled answers the query too (a worker replays it):
  // what it did, and how it ended.
  const unfinished = [...UNFINISHED_STATUSES, 'CANCELLED'].includes(described?.status.name ?? '');
  const live =
    handle && (running || unfinished)
      ? await queryStatus<SagaStatus>(handle, domain.statusQuery)
      : undefined;
  const status = live && !('error' in live) ? live : undefined;
  const result =
    handle && described?.status.name === 'COMPLETED'
      ? await (handle.result() as Promise<SagaResult>).catch(() => undefined)
      : undefined;
  const seen = described
    ? attentionOf(running, live as never, described.memo)
    : { source: 'none' as const, detail: 'the claim (the run is gone from Temporal)' };
  const attention = seen.attention;
  const operatorActions = handle
    ? await readOperatorActions(client, handle, status, domain.cancelSignal)
    : { error: 'the run is gone from Temporal' };
  const step = status?.step ?? (described && stepOf(described));
  const uiUrl =
    run &&
    workflowUrl(
      ctx.config.temporal.uiUrl,
      ctx.config.temporal.namespace,
      run.workflowId,
      run.runId,
    );
  const json = {
    domain: domain.name,
    entityId,
    ...run,
    status: described?.status.name ?? 'GONE',
    step,
    outcome: status?.outcome ?? result?.outcome,
    statusSource: seen.source,
    attention,
    parked:
      status?.parked ??
      (attention?.state === 'parked'
        ? { step: attention.step, error: attention.cause, since: attention.since }
        : undefined),
    operatorActions,
    recoveryPoints: status?.recoveryPoints,
    keys: status?.keys,
    queryError: live && 'error' in live ? live.error : undefined,
    result,
    startTime: described?.startTime.toISOString(),
    closeTime: described?.closeTime?.toISOString(),
    owner: claim ?? null,
    uiUrl,
  };
  const human = formatFields([
    [domain.entity, entityId],
    [
      'workflow',
      run
        ? `${run.workflowId} (run ${run.runId}, found by ${run.foundBy})`
        : "gone from Temporal (its retention); the claim below is the entity's record",
    ],
    ['owner', claim ? describeClaim(claim) : 'none yet (no run has claimed it)'],
    ['status', json.status],
    ['step', step],
    ['outcome', json.outcome],
    ...(attention ? [attentionLine(attention)] : []),
    ['last error', attention?.cause],
    ...operatorActionLines(operatorActions),
    [
      'next',
      (run &&
        described &&
        unfinishedLine({ ...run, status: described.status.name }, domain.name, status, claim)) ||
        nextOf(domain, entityId, step, attention),
    ],
    ['status from', seen.detail],
    ...Object.entries(status?.keys ?? {}).map(([s, k]): [string, string] => [`key ${s}`, k]),
    ['Web UI', uiUrl],
  ]);
  return { json, human };
}

function describeClaim(claim: EntityClaim): string {
  const settled = claim.settled ? `settled ${claim.settled} at ${claim.settledAt}` : 'not settled';
  return `${claim.workflowId} (run ${claim.runId ?? '?'}, claimed ${claim.claimedAt}, ${settled})`;
}

/** The `next:` line: the commands for a parked run, the workflow's word for a waiting one. */
function nextOf(
  domain: OpsDomain,
  entityId: string,
  step: string | undefined,
  attention: ReturnType<typeof attentionOf>['attention'],
): string {
  if (step === 'needs_attention') return nextCommandsOf(entityId, domain.name);
  if (attention?.state !== 'waiting') return '';
  if (attention.action) return plainOfMarkdown(attention.action);
  const retry = shellCommand(['npx', 'onceflow', domain.name, 'retry', '--', entityId]);
  return `none needed: ${attention.step} retries on its own with the same key; ${retry} tries now`;
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
    options: { reason: { type: 'string' }, by: { type: 'string' } },
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
  const step = stepOf(described);
  // retry/resolve mean something only to a parked or waiting step; the workflow would ignore them.
  if (action !== 'cancel' && !ACTIONABLE_STEPS.includes(step ?? ''))
    throw new InvalidStateError(
      `${domain.entity} ${entityId} is at step ${step ?? '?'}, not ${ACTIONABLE_STEPS.join(' or ')}`,
    );
  const signal =
    action === 'retry'
      ? retryStepSignal.name
      : action === 'resolve'
        ? resolveStepSignal.name
        : domain.cancelSignal;
  // A cancellation's payload is the saga's CancelRequest: `reason` is required there.
  const reason =
    action === 'cancel' ? (operator.reason ?? 'operator cancel via onceflow CLI') : undefined;
  await handle.signal(signal, reason === undefined ? operator : { ...operator, reason });
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
