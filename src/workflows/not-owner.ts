// How a run that does not own its entity ends (outcome duplicate or `<entity>-conflict`): it
// acts on nothing, except to pass on a cancellation it received. Workflow code.
import type { SignalDefinition } from '@temporalio/workflow';
import { nothingToCompensate, type ClaimRecord, type ClaimVerdict } from '../db/entity-claim';
import type { SagaDisplay } from './details';
import type { SagaRuntime } from './saga-runtime';
import type { CancelRequest, SagaResult, SagaStatus } from './saga-status';

/** What endWithoutActing needs of the run. */
export interface NotOwnerRun {
  runtime: SagaRuntime;
  status: SagaStatus;
  display: SagaDisplay;
  entityId: string;
  /** This run's workflow ID. */
  workflowId: string;
  /** This run's payload fingerprint. */
  fingerprint: string;
  cancel: SignalDefinition<[CancelRequest]>;
  /** Runs every compensation with the entity's keys, on behalf of the owner. */
  compensateFor(owner: { workflowId: string; runId?: string }): Promise<void>;
  finish(step: string, result: SagaResult): SagaResult & Record<string, unknown>;
}

/**
 * Another run owns the entity: end without acting. A cancellation this run received is the
 * entity's, so it goes to the owner; if the owner has closed, this run compensates on its
 * behalf with the entity's keys (acting once whoever asks), and the owner's claim is settled.
 * Nothing is passed on when the claim says there is nothing left to undo. The owner's
 * workflow ID may be this run's own: the same event read again after Temporal forgot the
 * owner's run; then there is nobody to signal.
 */
export async function endWithoutActing(
  run: NotOwnerRun,
  verdict: Exclude<ClaimVerdict<ClaimRecord>, { kind: 'owner' }>,
): Promise<SagaResult & Record<string, unknown>> {
  const { status, entityId, display } = run;
  const owner = verdict.claim;
  status.owner = {
    workflowId: owner.workflowId,
    ...(owner.runId !== undefined ? { runId: owner.runId } : {}),
    fingerprint: owner.fingerprint,
    runFingerprint: run.fingerprint,
    ...(owner.settled !== undefined ? { settled: owner.settled } : {}),
  };
  if (status.cancellation && !nothingToCompensate(owner.settled)) {
    try {
      if (owner.workflowId === run.workflowId) throw new Error('the owner run is gone');
      await run.runtime.signal(owner.workflowId, run.cancel, {
        reason: status.cancellation.reason,
      });
    } catch {
      await run.compensateFor({
        workflowId: owner.workflowId,
        ...(owner.runId !== undefined ? { runId: owner.runId } : {}),
      });
    }
  }
  const ownerFacts = {
    owner: owner.workflowId,
    ...(owner.runId !== undefined ? { ownerRunId: owner.runId } : {}),
    ...(owner.settled !== undefined ? { settled: owner.settled } : {}),
  };
  const ownerText =
    `workflow ${owner.workflowId}` +
    (owner.runId !== undefined
      ? ` (run ${owner.runId}${owner.settled ? `, settled ${owner.settled}` : ''})`
      : '');
  if (verdict.kind === 'duplicate') {
    return run.finish('duplicate', {
      outcome: 'duplicate',
      ...ownerFacts,
      reason: `${display.entity} ${entityId} is owned by ${ownerText} (same payload)`,
    });
  }
  return run.finish(`${display.entity}_conflict`, {
    outcome: `${display.entity}-conflict`,
    ...ownerFacts,
    ownerFingerprint: owner.fingerprint,
    fingerprint: run.fingerprint,
    reason: `${display.entity} ${entityId} is owned by ${ownerText} with payload fingerprint ${owner.fingerprint}; this payload's fingerprint is ${run.fingerprint}`,
  });
}
