import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { ClaimVerdict } from '../db/order-claim-store';
import type { OrderPlacedData } from '../events/order-events';
import type { EventWorkflowInput } from '../events/workflow-input';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import { BUSINESS_FAILURES, orderActivities } from './order-activities';
import { currentDetailsOf } from './order-details';
import {
  cancelOrderSignal,
  orderStatusQuery,
  resolveStepSignal,
  retryStepSignal,
  stepKeys,
  type OrderResult,
  type OrderStatus,
  type OrderStep,
  type StepName,
} from './order-definitions';

/** What a step's effect is known to be: compensation acts on `done` and `unknown`. */
type Effect = 'none' | 'unknown' | 'done';

type StepOutcome<T> = { kind: 'done'; value: T } | { kind: 'resolved' } | { kind: 'cancelled' };

/** The business failure type behind an activity failure, if it is one. */
function businessFailureOf(err: unknown): string | undefined {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof ApplicationFailure)) return;
  const type = err.cause.type ?? '';
  return (BUSINESS_FAILURES as readonly string[]).includes(type) ? type : undefined;
}

function describeFailure(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
}

/**
 * OrderPlaced → reserve inventory → charge → confirmation email, as a saga. The reserve step
 * also claims the order: a run that finds another run owning it ends `duplicate` (same
 * payload) or `order-conflict` (different payload) and acts on nothing. Every activity
 * carries `order:<orderId>:<step>` as its idempotency key. A step that runs out of its retry
 * budget parks the order in needs_attention until an operator signals retry, resolve or
 * cancel. A cancellation (signal) compensates at the next step boundary: release if only
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
  let operatorAction: 'retry' | 'resolve' | undefined;
  let compensating = false;

  setHandler(orderStatusQuery, () => status);
  setHandler(cancelOrderSignal, ({ reason }) => {
    // Repeated cancellations act once: only the first is recorded.
    status.cancellation ??= { reason, requestedAt: new Date().toISOString() };
  });
  setHandler(retryStepSignal, () => {
    if (status.parked) operatorAction = 'retry';
  });
  setHandler(resolveStepSignal, () => {
    if (status.parked) operatorAction = 'resolve';
  });

  const setStep = (step: OrderStep) => {
    status.step = step;
    upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE.orderStep, value: step }]);
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

  /** Runs one step to completion, parking in needs_attention whenever its budget is spent. */
  async function runStep<T>(
    step: StepName,
    running: OrderStep,
    call: () => Promise<T>,
  ): Promise<StepOutcome<T>> {
    for (;;) {
      setStep(running);
      try {
        const value = await call();
        status.recoveryPoints.push({ step, at: new Date().toISOString(), how: 'done' });
        return { kind: 'done', value };
      } catch (err) {
        if (businessFailureOf(err)) throw err;
        status.parked = { step, error: describeFailure(err), since: new Date().toISOString() };
        setStep('needs_attention');
        await condition(() => operatorAction !== undefined || cancelled());
        const action = operatorAction;
        operatorAction = undefined;
        status.parked = undefined;
        if (cancelled()) return { kind: 'cancelled' };
        if (action === 'resolve') {
          status.recoveryPoints.push({ step, at: new Date().toISOString(), how: 'resolved' });
          return { kind: 'resolved' };
        }
      }
    }
  }

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
