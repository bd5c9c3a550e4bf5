/**
 * `<domain> show <id>`: a domain's entity as an operator needs it: its run and claim, step and
 * attention, operator record, whether the run can go on on its code, keys and the Web UI link.
 */
import { DEFAULT_PRIORITY_KEY, describePriority } from '../temporal/run-priority';
import { parseArgs } from 'node:util';
import type { EntityClaim } from '../db/entity-claim';
import { workflowUrl } from '../temporal/ui-links';
import { shellCommand } from '../util/shell-quote';
import type { SagaResult, SagaStatus } from '../workflows/saga-status';
import type { OpsContext } from './context';
import type { OpsDomain } from './ops-domain';
import { buildLine, readRunProgress, stallLine } from './run-progress';
import { operatorActionLines, readOperatorActions } from './operator-history';
import { attentionLine, attentionOf, plainOfMarkdown } from './order-attention';
import { runStepOf } from '../temporal/run-step';
import { nextCommandsOf } from './order-show';
import { queryStatus } from './order-status';
import { UNFINISHED_STATUSES, unfinishedLine } from './closed-run';
import { formatFields, NotFoundError, positional, type CommandResult } from './output';
import { findEntityRun } from './entity-commands';

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
  // A run that cannot go on on its code writes nothing: Temporal says it, not the run.
  const progress = described ? await readRunProgress(client, ctx.db(), described) : {};
  const stall = stallLine(progress);
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
    ? attentionOf(running, live as never, described.memo, described.raw.pendingActivities)
    : { source: 'none' as const, detail: 'the claim (the run is gone from Temporal)' };
  const attention = seen.attention;
  const operatorActions = handle
    ? await readOperatorActions(client, handle, status, domain.cancelSignal)
    : { error: 'the run is gone from Temporal' };
  const step = status?.step ?? (described && runStepOf(described));
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
    build: progress.build,
    stalled: progress.stalled,
    // Temporal's own: the run's fairness key (its tenant) and priority key, as describe says.
    tenant: described?.priority?.fairnessKey || undefined,
    priority: described ? (described.priority?.priorityKey ?? DEFAULT_PRIORITY_KEY) : undefined,
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
    ['priority', described ? describePriority(described.priority) : undefined],
    ['build', buildLine(progress.build)],
    ['step', step],
    ...(stall ? [['cannot go on', stall] as [string, string]] : []),
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
