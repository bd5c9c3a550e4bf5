// PayoutCancelled → the payout's owner (its claim) compensates: a running payout is signalled
// (its saga reverses what it did), a paid one is reversed here under the same `reverse` key,
// so whichever path runs first the provider reverses once. Workflow code.
import { getExternalWorkflowHandle, sleep, workflowInfo } from '@temporalio/workflow';
import {
  cancelSignal,
  proxyThroughOutage,
  type ClaimActivities,
  type EventWorkflowInput,
} from '../../../workflow';
import type { PayoutActivities } from '../activities';
import type { PayoutCancelledData } from '../payout-events';
import { PAYOUTS_DOMAIN } from './payout-names';
import { payout } from './payout';
import { PAYOUT_PROVIDER } from './payout-names';

// Outside a run's steps no operator stands by: each call waits out an outage (a provider's,
// our database's) for the worker's window instead of failing the cancellation.
const own = proxyThroughOutage<Pick<ClaimActivities, 'findClaimOwner' | 'settleClaim'>>('own');
const foreign = proxyThroughOutage<Pick<PayoutActivities, 'reverseTransfer'>>(
  'foreign',
  undefined,
  PAYOUT_PROVIDER.bank,
);

/**
 * How long a cancellation waits for its payout's run to claim the payout. The bridge starts
 * the PayoutRequested's run before this one (same aggregate, same partition, in order), but
 * that run's claim may come later: its first workflow task can be lost with a killed worker
 * and retried after the task timeout while this run goes ahead on another worker. Without
 * the wait, a cancellation could find no owner, do nothing, and let the payout pay out.
 * Durable timers, doubling from 1 s to 30 s: about ten minutes in all.
 */
const OWNER_WAIT_MS = 10 * 60_000;

export interface PayoutCancellationResult {
  payoutId: string;
  handledBy: 'payout-not-found' | 'already-settled' | 'signalled' | 'reversed';
  ownerWorkflowId?: string;
  settled?: string;
}

export async function payoutCancellation(
  input: EventWorkflowInput<PayoutCancelledData>,
): Promise<PayoutCancellationResult> {
  const { payoutId, reason } = input.data;
  let owner = await own.findClaimOwner({ domain: PAYOUTS_DOMAIN, entityId: payoutId });
  for (let waited = 0, pause = 1000; !owner.workflowId && waited < OWNER_WAIT_MS;) {
    await sleep(pause);
    waited += pause;
    pause = Math.min(pause * 2, 30_000);
    owner = await own.findClaimOwner({ domain: PAYOUTS_DOMAIN, entityId: payoutId });
  }
  if (!owner.workflowId) return { payoutId, handledBy: 'payout-not-found' };
  const ownerWorkflowId = owner.workflowId;
  if (owner.settled !== undefined && owner.settled !== 'completed')
    return { payoutId, handledBy: 'already-settled', ownerWorkflowId, settled: owner.settled };
  if (owner.settled === undefined) {
    try {
      await getExternalWorkflowHandle(ownerWorkflowId).signal(cancelSignal, {
        reason: `${reason} (cancellation ${workflowInfo().workflowId})`,
        by: `cancellation workflow ${workflowInfo().workflowId}`,
      });
      return { payoutId, handledBy: 'signalled', ownerWorkflowId };
    } catch {
      // Closed before it settled: nothing will reverse it unless we do.
    }
  }
  // The payout's own reverse key: whichever path reverses first, the provider reverses once.
  await foreign.reverseTransfer({ key: payout.keysOf(payoutId).reverse!, payoutId });
  await own.settleClaim({
    domain: PAYOUTS_DOMAIN,
    entityId: payoutId,
    workflowId: ownerWorkflowId,
    ...(owner.runId ? { runId: owner.runId } : {}),
    fingerprint: owner.fingerprint!,
    settled: 'reversed',
  });
  return { payoutId, handledBy: 'reversed', ownerWorkflowId };
}
