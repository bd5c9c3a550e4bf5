import {
  patched,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ClaimVerdict, SettledState } from '../db/order-claim';
import type { OrderPlacedData } from '../events/order-events';
import type { EventWorkflowInput } from '../events/workflow-input';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import { orderActivities, SETTLE_CLAIM_PATCH } from './order-activities';
import { currentDetailsOf } from './order-details';
import { endWithoutActing } from './order-not-owner';
import { installOperatorHandlers } from './order-operator';
import { stepKeys, type OrderResult, type OrderStatus, type OrderStep } from './order-definitions';
import { createStepRunner, describeFailure, type StepRunnerContext } from './order-step-runner';

/**
 * Runs recorded before this patch upserted OrderStep on every step (received, reserving,
 * charging, emailing...); they replay that way. New runs write the search attribute (a
 * visibility write each) only for the values an operator queries (QUERIED_STEPS) and keep the
 * running step in the current details, which cost the server nothing.
 */
export const QUERIED_STEPS_PATCH = 'order-step-upserted-only-where-queried';

/** OrderStep values operators query (docs/operations.md): parked, waiting, and every ending. */
const QUERIED_STEPS: ReadonlySet<OrderStep> = new Set<OrderStep>([
  'needs_attention',
  'waiting',
  'completed',
  'rejected',
  'declined',
  'cancelled',
  'duplicate',
  'order_conflict',
]);

/** What a step's effect is known to be: compensation acts on `done` and `unknown`. */
type Effect = 'none' | 'unknown' | 'done';

/**
 * OrderPlaced → reserve inventory → charge → confirmation email, as a saga. The reserve step
 * also claims the order: a run that finds another run owning it ends `duplicate` (same
 * payload) or `order-conflict` (different payload) and acts on nothing. Every activity
 * carries `order:<orderId>:<step>` as its idempotency key. A step failing on a transient
 * cause waits (step `waiting`) and retries with the same key for the transient window; a
 * permanent cause, or a spent window, parks the order in needs_attention until an operator
 * signals retry, resolve or cancel (src/workflows/order-step-runner.ts). A cancellation (signal) compensates at the next step boundary: release if only
 * reserved; refund and release if charged (or if the charge's outcome is unknown); a run
 * that does not own the order passes the cancellation on to the owner. The owner is a RUN
 * (its first execution run ID), not a workflow ID: a run started again under the owner's
 * workflow ID after Temporal forgot the owner is a duplicate too. The owner ends by settling
 * its claim (completed, rejected, declined, cancelled), the memory that never expires.
 */
export async function orderFulfillment(
  input: EventWorkflowInput<OrderPlacedData>,
): Promise<OrderResult> {
  const order = input.data;
  const info = workflowInfo();
  const workflowId = info.workflowId;
  // The run as the claim knows it: its chain's first run ID and start, both kept by a reset.
  const runId = info.firstExecutionRunId;
  const startedAt = info.startTime.toISOString();
  const status: OrderStatus = {
    orderId: order.orderId,
    step: 'received',
    recoveryPoints: [],
    keys: stepKeys(order.orderId),
  };
  const fingerprint = input.event.fingerprint;
  const effects: Record<'reserve' | 'charge', Effect> = { reserve: 'none', charge: 'none' };
  const pending: StepRunnerContext['pending'] = {};
  let compensating = false;

  installOperatorHandlers(status, pending);

  const onlyQueried = patched(QUERIED_STEPS_PATCH);
  /** The OrderStep value in visibility (undefined: not set, the order is running). */
  let visibleStep: OrderStep | undefined;
  const setStep = (step: OrderStep) => {
    status.step = step;
    if (!onlyQueried) {
      upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE.orderStep, value: step }]);
    } else {
      // A running step clears a waiting/parked value, so those queries never list an order
      // that runs again; otherwise running steps write nothing.
      const next = QUERIED_STEPS.has(step) ? step : undefined;
      if (next !== visibleStep) {
        upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE.orderStep, value: next ?? null }]);
        visibleStep = next;
      }
    }
    setCurrentDetails(currentDetailsOf(status));
  };
  // The bridge sets these at start; a start without them (tests, manual starts) gets them here.
  if (!workflowInfo().typedSearchAttributes.get(SEARCH_ATTRIBUTE.orderId)) {
    upsertSearchAttributes([
      { key: SEARCH_ATTRIBUTE.orderId, value: order.orderId },
      { key: SEARCH_ATTRIBUTE.customerId, value: order.customerId },
      { key: SEARCH_ATTRIBUTE.eventId, value: input.event.eventId },
      { key: SEARCH_ATTRIBUTE.eventType, value: input.event.eventType },
    ]);
  }
  setStep('received');
  const cancelled = () => !compensating && status.cancellation !== undefined;

  const runStep = createStepRunner({ status, setStep, pending, cancelled });

  const finish = (step: OrderStep, result: Omit<OrderResult, 'orderId'>): OrderResult => {
    status.outcome = result.outcome;
    setStep(step);
    return { orderId: order.orderId, chargeId: status.chargeId, ...result };
  };

  /**
   * The owner records how its order ended on its claim, the memory that never expires, so a
   * re-read of this event after the ledger, Temporal and the providers forgot it acts on
   * nothing. False for runs recorded before the patch: they end as they did.
   */
  async function settle(settled: SettledState): Promise<boolean> {
    if (!patched(SETTLE_CLAIM_PATCH)) return false;
    await orderActivities.settle({
      orderId: order.orderId,
      workflowId,
      runId,
      fingerprint,
      settled,
    });
    return true;
  }

  const endAsNotOwner = (verdict: Exclude<ClaimVerdict, { kind: 'owner' }>) =>
    endWithoutActing(
      { orderId: order.orderId, workflowId, fingerprint, status, runStep, finish },
      () => (compensating = true),
      verdict,
    );

  /** Undoes what was done (or may have been done), each compensation once, with its own key. */
  async function compensate(): Promise<OrderResult> {
    compensating = true;
    if (effects.reserve !== 'done') {
      // Cancelled before this run knew it owned the order. Settle that through the claim:
      // claim it as cancelled (so a re-send cannot act on a cancelled order), or learn the
      // owner and hand the cancellation over. The claim is part of the reserve step.
      const claimed = await runStep('reserve', 'compensating', () =>
        orderActivities.claimCancelled({
          orderId: order.orderId,
          workflowId,
          runId,
          startedAt,
          fingerprint,
        }),
      );
      if (claimed.kind === 'done' && claimed.value.kind !== 'owner') {
        effects.reserve = 'none';
        return endAsNotOwner(claimed.value);
      }
    }
    if (effects.charge !== 'none') {
      // Always by order (never by charge ID): the cancellation workflow sends the same request
      // under the same key, so whichever path runs first, the provider refunds once, and every
      // charge the order has is refunded.
      await runStep('refund', 'compensating', () =>
        orderActivities.refund({ key: status.keys.refund, orderId: order.orderId }),
      );
    }
    if (effects.reserve !== 'none') {
      await runStep('release', 'compensating', () =>
        orderActivities.release({
          key: status.keys.release,
          reservationKey: status.keys.reserve,
          ownerWorkflowId: workflowId,
        }),
      );
    }
    await settle('cancelled');
    return finish('cancelled', { outcome: 'cancelled', reason: status.cancellation?.reason });
  }

  if (cancelled()) return compensate();

  // 1. Reserve. Out of stock ends the order before anything is charged.
  effects.reserve = 'unknown';
  try {
    const reserved = await runStep('reserve', 'reserving', () =>
      orderActivities.reserve({
        key: status.keys.reserve,
        orderId: order.orderId,
        items: order.items.map((l) => ({ sku: l.sku, quantity: l.quantity })),
        workflowId,
        runId,
        startedAt,
        fingerprint,
      }),
    );
    if (reserved.kind === 'cancelled') return compensate();
    // Compared positively: a result without a verdict (recorded before claims existed) is
    // the owner's, so older histories still replay.
    const result = reserved.kind === 'done' ? reserved.value : undefined;
    if (result?.verdict === 'duplicate' || result?.verdict === 'order-conflict') {
      effects.reserve = 'none';
      return endAsNotOwner(
        result.verdict === 'duplicate'
          ? { kind: 'duplicate', claim: result.owner }
          : { kind: 'order-conflict', claim: result.owner, fingerprint },
      );
    }
    if (result?.verdict === 'owner' && result.reopened) status.reopened = result.reopened;
  } catch (err) {
    effects.reserve = 'none';
    // Out of stock reserved nothing; the claim remembers the rejection, so a re-read of this
    // event after every other memory expired does not fulfil the order late.
    await settle('rejected');
    return finish('rejected', { outcome: 'rejected', reason: describeFailure(err) });
  }
  effects.reserve = 'done';
  if (cancelled()) return compensate();

  // 2. Charge. A decline releases the reservation.
  effects.charge = 'unknown';
  try {
    const charged = await runStep('charge', 'charging', () =>
      orderActivities.charge({
        key: status.keys.charge,
        orderId: order.orderId,
        customerId: order.customerId,
        amountMinor: order.totalMinor,
        currency: order.currency,
      }),
    );
    if (charged.kind === 'cancelled') return compensate();
    if (charged.kind === 'done') status.chargeId = charged.value.chargeId;
  } catch (err) {
    effects.charge = 'none';
    compensating = true;
    await runStep('release', 'compensating', () =>
      orderActivities.release({
        key: status.keys.release,
        reservationKey: status.keys.reserve,
        ownerWorkflowId: workflowId,
      }),
    );
    await settle('declined');
    return finish('declined', { outcome: 'declined', reason: describeFailure(err) });
  }
  effects.charge = 'done';
  if (cancelled()) return compensate();

  // 3. Confirmation email.
  const emailed = await runStep('email', 'emailing', () =>
    orderActivities.email({
      key: status.keys.email,
      orderId: order.orderId,
      to: order.email,
      subject: `Order ${order.orderId} confirmed`,
      body: `Thank you. We charged ${(order.totalMinor / 100).toFixed(2)} ${order.currency}.`,
    }),
  );
  // A cancellation that arrived while the email was out still compensates: the signal is in
  // history before completion, so it cannot be lost between the last step and the return.
  if (emailed.kind === 'cancelled' || cancelled()) return compensate();
  // So does one that arrived while the settlement was written (compensation settles again).
  if ((await settle('completed')) && cancelled()) return compensate();
  return finish('completed', { outcome: 'completed' });
}
