// How a run that does not own its order ends (outcome duplicate or order-conflict): it acts
// on nothing, except to pass on a cancellation it received. Workflow code.
import { getExternalWorkflowHandle } from '@temporalio/workflow';
import { nothingToCompensate, type ClaimVerdict } from '../db/order-claim';
import { orderActivities } from './order-activities';
import {
  cancelOrderSignal,
  type OrderResult,
  type OrderStatus,
  type OrderStep,
} from './order-definitions';
import type { createStepRunner } from './order-step-runner';

/** What endWithoutActing needs of the run. */
export interface NotOwnerRun {
  orderId: string;
  /** This run's workflow ID. */
  workflowId: string;
  /** This run's payload fingerprint. */
  fingerprint: string;
  status: OrderStatus;
  runStep: ReturnType<typeof createStepRunner>;
  finish(step: OrderStep, result: Omit<OrderResult, 'orderId'>): OrderResult;
}

/**
 * Another run owns the order: end without acting. A cancellation this run received is the
 * order's, so it goes to the owner; if the owner has closed, this run compensates on its
 * behalf with the order's keys (acting once whoever asks) and settles the claim `refunded`.
 * Nothing is passed on when the claim says the order has nothing left to undo (cancelled,
 * refunded, declined, rejected). The owner's workflow ID may be this run's own: the same
 * event read again after Temporal forgot the owner's run; then there is nobody to signal.
 */
export async function endWithoutActing(
  run: NotOwnerRun,
  startCompensating: () => void,
  verdict: Exclude<ClaimVerdict, { kind: 'owner' }>,
): Promise<OrderResult> {
  const { status, runStep, orderId } = run;
  const owner = verdict.claim;
  status.owner = {
    workflowId: owner.workflowId,
    ...(owner.runId !== undefined ? { runId: owner.runId } : {}),
    fingerprint: owner.fingerprint,
    runFingerprint: run.fingerprint,
    ...(owner.settled !== undefined ? { settled: owner.settled } : {}),
  };
  if (status.cancellation && !nothingToCompensate(owner.settled)) {
    startCompensating();
    try {
      if (owner.workflowId === run.workflowId) throw new Error('the owner run is gone');
      await getExternalWorkflowHandle(owner.workflowId).signal(cancelOrderSignal, {
        reason: status.cancellation.reason,
      });
    } catch {
      await runStep('refund', 'compensating', () =>
        orderActivities.refund({ key: status.keys.refund, orderId }),
      );
      await runStep('release', 'compensating', () =>
        orderActivities.release({
          key: status.keys.release,
          reservationKey: status.keys.reserve,
          ownerWorkflowId: owner.workflowId,
          settle: { settled: 'refunded', ...(owner.runId ? { runId: owner.runId } : {}) },
        }),
      );
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
      reason: `order ${orderId} is owned by ${ownerText} (same payload)`,
    });
  }
  return run.finish('order_conflict', {
    outcome: 'order-conflict',
    ...ownerFacts,
    ownerFingerprint: owner.fingerprint,
    fingerprint: run.fingerprint,
    reason: `order ${orderId} is owned by ${ownerText} with payload fingerprint ${owner.fingerprint}; this payload's fingerprint is ${run.fingerprint}`,
  });
}
