/**
 * A run that closed without finishing its saga: terminated (Temporal runs no code then: no
 * compensation ran, the claim is not settled), failed or timed out. `show` says what it left
 * undone; `cancel` starts a compensating run of the same workflow: it finds the entity owned
 * by the closed run, unwinds every compensation with the entity's own keys on its behalf
 * (what it did is undone once, whichever path runs first) and settles the owner's claim.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { EntityClaim } from '../db/entity-claim';
import { nothingToCompensate } from '../db/entity-claim';
import type { EventWorkflowInput } from '../events/workflow-input';
import { shellCommand } from '../util/shell-quote';
import type { OperatorAction, SagaStatus } from '../workflows/saga-status';
import { findClaim } from '../db/entity-claim-store';
import type { OpsContext } from './context';
import { InvalidStateError, type CommandResult } from './output';

/** Statuses of a run that ended without its saga's own ending (no compensation ran). */
export const UNFINISHED_STATUSES: readonly string[] = ['TERMINATED', 'FAILED', 'TIMED_OUT'];

/** The run a closed-run command acts on. */
export interface ClosedRun {
  workflowId: string;
  runId: string;
  entityId: string;
  status: string;
}

/**
 * What a run that closed unfinished left undone, and the command that finishes it: the steps
 * it recorded as done (from its status, replayed by a worker) and the claim not settled.
 */
export function unfinishedLine(
  run: ClosedRun,
  cli: string,
  status: SagaStatus | undefined,
  claim: EntityClaim | undefined,
): string | undefined {
  if (!UNFINISHED_STATUSES.includes(run.status)) return undefined;
  const cancel = shellCommand(['npx', 'onceflow', cli, 'cancel', '--', run.entityId]);
  if (nothingToCompensate(claim?.settled))
    return `${run.status.toLowerCase()}; its claim says ${claim!.settled}: nothing is left to undo`;
  const done = status?.recoveryPoints.map((p) => p.step);
  const what = done
    ? done.length
      ? `done and not undone: ${done.join(', ')}`
      : 'no step was done'
    : 'its steps are listed once a worker answers the status query';
  return `${run.status.toLowerCase()}: it ran no compensation (${what}; claim not settled); ${cancel} undoes what it did with its own keys`;
}

/**
 * Starts the compensating run of a closed run: its own workflow type and input, cancelled
 * from the start, under `<workflowId>:cancel` (a second cancel finds it started).
 */
export async function cancelClosedRun(
  client: Client,
  run: ClosedRun,
  claim: EntityClaim | undefined,
  operator: OperatorAction & { reason: string },
): Promise<{ workflowId: string; started: boolean }> {
  if (nothingToCompensate(claim?.settled))
    throw new InvalidStateError(
      `${run.entityId} is ${run.status}; its claim says ${claim!.settled}: nothing is left to undo`,
    );
  const handle = client.workflow.getHandle(run.workflowId, run.runId);
  const [described, history] = await Promise.all([handle.describe(), handle.fetchHistory()]);
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const input = await decodeFromPayloadsAtIndex<EventWorkflowInput<unknown>>(
    client.options.loadedDataConverter,
    0,
    started?.input?.payloads,
  );
  const workflowId = `${run.workflowId}:cancel`;
  try {
    await client.workflow.start(described.type, {
      taskQueue: described.taskQueue,
      workflowId,
      args: [{ ...input, cancel: operator }],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      staticSummary: `compensates ${run.workflowId} (${run.status.toLowerCase()})`,
    });
    return { workflowId, started: true };
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return { workflowId, started: false };
    throw err;
  }
}

/** `cancel` of a run that closed unfinished: the compensating run undoes what it did. */
export async function cancelClosed(
  ctx: OpsContext,
  domain: { name: string; entity: string },
  run: { workflowId: string; runId: string; entityId: string },
  status: string,
  operator: OperatorAction,
): Promise<CommandResult> {
  const claim = await findClaim(ctx.db(), { domain: domain.name, entityId: run.entityId });
  const reason = operator.reason ?? `operator cancel of a ${status.toLowerCase()} run`;
  const started = await cancelClosedRun(await ctx.temporal(), { ...run, status }, claim, {
    ...operator,
    reason,
  });
  return {
    json: { domain: domain.name, ...run, statusBefore: status, compensatingRun: started, reason },
    human: started.started
      ? `${domain.entity} ${run.entityId} was ${status}: started ${started.workflowId}, which undoes what it did with its keys and settles its claim`
      : `${domain.entity} ${run.entityId} was ${status}: its compensating run ${started.workflowId} was started before`,
  };
}
