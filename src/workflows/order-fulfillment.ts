import {
  getExternalWorkflowHandle,
  patched,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ClaimVerdict } from '../db/order-claim-store';
import type { OrderPlacedData } from '../events/order-events';
import type { EventWorkflowInput } from '../events/workflow-input';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import { orderActivities } from './order-activities';
import { currentDetailsOf } from './order-details';
import {
  cancelOrderSignal,
  orderStatusQuery,
  resolveStepSignal,
  retryStepSignal,
  stepKeys,
  type OperatorAction,
  type OrderResult,
  type OrderStatus,
  type OrderStep,
  type RecordedOperatorAction,
} from './order-definitions';
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
 * that does not own the order passes the cancellation on to the owner.
 */
export async function orderFulfillment(
  input: EventWorkflowInput<OrderPlacedData>,
): Promise<OrderResult> {
  const order = input.data;
  const workflowId = workflowInfo().workflowId;
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

  /** Every operator action goes into the status (and thus `orders show`), acted on or not. */
  const record = (action: RecordedOperatorAction['action'], from?: Partial<OperatorAction>) => {
    const entry: RecordedOperatorAction = {
      action,
      by: from?.by ?? 'unknown (sender predates operator records)',
      at: from?.at ?? new Date().toISOString(),
    };
    if (from?.reason !== undefined) entry.reason = from.reason;
    (status.operatorActions ??= []).push(entry);
  };
  setHandler(orderStatusQuery, () => status);
  setHandler(cancelOrderSignal, (request) => {
    record('cancel', request);
    // Repeated cancellations act once: only the first is recorded.
    status.cancellation ??= { reason: request.reason, requestedAt: new Date().toISOString() };
  });
  setHandler(retryStepSignal, (action?: OperatorAction) => {
    record('retry', action);
    if (status.parked || status.waiting) pending.action = 'retry';
  });
  setHandler(resolveStepSignal, (action?: OperatorAction) => {
    record('resolve', action);
    if (status.parked || status.waiting) pending.action = 'resolve';
  });

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
   * Another run owns the order: end without acting. A cancellation this run received is
   * the order's, so it goes to the owner; if the owner has closed, this run compensates on
   * its behalf with the order's keys (acting once whoever asks).
   */
  async function endAsNotOwner(verdict: Exclude<ClaimVerdict, { kind: 'owner' }>) {
    const owner = verdict.claim;
    status.owner = {
      workflowId: owner.workflowId,
      fingerprint: owner.fingerprint,
      runFingerprint: fingerprint,
    };
    if (status.cancellation) {
      compensating = true;
      try {
        await getExternalWorkflowHandle(owner.workflowId).signal(cancelOrderSignal, {
          reason: status.cancellation.reason,
        });
      } catch {
        await runStep('refund', 'compensating', () =>
          orderActivities.refund({ key: status.keys.refund, orderId: order.orderId }),
        );
        await runStep('release', 'compensating', () =>
          orderActivities.release({
            key: status.keys.release,
            reservationKey: status.keys.reserve,
            ownerWorkflowId: owner.workflowId,
          }),
        );
      }
    }
    if (verdict.kind === 'duplicate') {
      return finish('duplicate', {
        outcome: 'duplicate',
        owner: owner.workflowId,
        reason: `order ${order.orderId} is owned by workflow ${owner.workflowId} (same payload)`,
      });
    }
    return finish('order_conflict', {
      outcome: 'order-conflict',
      owner: owner.workflowId,
      ownerFingerprint: owner.fingerprint,
      fingerprint,
      reason: `order ${order.orderId} is owned by workflow ${owner.workflowId} with payload fingerprint ${owner.fingerprint}; this payload's fingerprint is ${fingerprint}`,
    });
  }

  /** Undoes what was done (or may have been done), each compensation once, with its own key. */
  async function compensate(): Promise<OrderResult> {
    compensating = true;
    if (effects.reserve !== 'done') {
      // Cancelled before this run knew it owned the order. Settle that through the claim:
      // claim it as cancelled (so a re-send cannot act on a cancelled order), or learn the
      // owner and hand the cancellation over. The claim is part of the reserve step.
      const settled = await runStep('reserve', 'compensating', () =>
        orderActivities.claimCancelled({ orderId: order.orderId, workflowId, fingerprint }),
      );
      if (settled.kind === 'done' && settled.value.kind !== 'owner') {
        effects.reserve = 'none';
        return endAsNotOwner(settled.value);
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
  } catch (err) {
    effects.reserve = 'none';
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
  return finish('completed', { outcome: 'completed' });
}
