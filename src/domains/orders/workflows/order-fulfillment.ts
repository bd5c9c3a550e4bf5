// OrderPlaced → reserve → charge → confirmation email, as a saga (src/workflows/saga.ts): a
// step table read top to bottom, each step one activity with the key `order:<orderId>:<step>`,
// each undoable step pushing its compensation before it runs. The reserve step also claims
// the order (in the reservation's transaction): a run that finds another run owning it ends
// `duplicate` (same payload) or `order-conflict` and acts on nothing. Out of stock ends the
// order `rejected`; a declined card releases the stock and ends it `declined`; a cancellation
// (signal) unwinds the stack: release if only reserved, refund and release if charged (or if
// the charge's outcome is unknown). A transient provider cause waits, anything else parks for
// an operator (retryStep, resolveStep, cancelOrder). The owner settles its claim at the end.
// Workflow code.
import { defineSaga, type EntityWorkflow } from '../../../workflows/saga';
import type { SagaStatus } from '../../../workflows/saga-status';
import type {
  ClaimOutcome,
  PublishStep,
  SagaDefinition,
  SagaStep,
} from '../../../workflows/saga-types';
import type { OrderActivities } from '../activities';
import { ORDERS_DOMAIN } from './order-claim';
import {
  cancelOrderSignal,
  ORDER_FULFILLED,
  ORDER_KEY_KIND,
  ORDER_PROVIDER,
  ORDER_STEP,
  orderStatusQuery,
  type OrderFulfilledData,
  type OrderResult,
} from './order-definitions';
import { ORDER_COUNTERPARTS } from './order-details';
import type { OrderPlacedData } from '../order-events';
import { ORDER_FAILURES } from './order-failures';
import type { ReserveResult } from '../inventory/inventory-service';

/** The order's own fields beside the engine's status: the order ID and the charge made. */
type OrderFields = { orderId: string; chargeId?: string };
type OrderStepRow = SagaStep<OrderPlacedData, OrderActivities, SagaStatus & OrderFields>;

/** 1. Reserve the stock and claim the order, in one transaction. Undone by a release. */
const reserve: OrderStepRow = {
  name: ORDER_STEP.reserve,
  running: 'reserving',
  activity: 'reserveInventory',
  retry: 'own',
  local: () => true,
  input: ({ data, key, claimant }) => ({
    key,
    orderId: data.orderId,
    items: data.items.map((l) => ({ sku: l.sku, quantity: l.quantity })),
    ...claimant,
  }),
  summary: (i) => `reserve ${i.items.length} line(s) of ${i.orderId} · ${i.key}`,
  failures: { [ORDER_FAILURES.outOfStock]: 'rejected' },
  compensate: {
    name: ORDER_STEP.release,
    activity: 'releaseInventory',
    retry: 'own',
    // On behalf of the owner (this run is a duplicate, the owner closed): its claim is
    // settled `refunded` in the release's own transaction, costing no statement of its own.
    input: ({ key, keys, workflowId, onBehalfOf }) => ({
      key,
      reservationKey: keys.reserve!,
      ownerWorkflowId: onBehalfOf?.workflowId ?? workflowId,
      ...(onBehalfOf
        ? {
            settle: {
              settled: 'refunded',
              ...(onBehalfOf.runId ? { runId: onBehalfOf.runId } : {}),
            },
          }
        : {}),
    }),
    summary: (i) => `release ${i.reservationKey} · ${i.key}`,
  },
};

/** 2. Charge the payment. Undone by a refund of every charge of the order. */
const charge: OrderStepRow = {
  name: ORDER_STEP.charge,
  running: 'charging',
  activity: 'chargePayment',
  retry: 'foreign',
  provider: ORDER_PROVIDER.card,
  input: ({ data, key }) => ({
    key,
    orderId: data.orderId,
    customerId: data.customerId,
    amountMinor: data.totalMinor,
    currency: data.currency,
  }),
  summary: (i) => `charge ${i.amountMinor} ${i.currency} for ${i.orderId} · ${i.key}`,
  failures: { [ORDER_FAILURES.paymentDeclined]: 'declined' },
  // Always by order (never by charge ID): the cancellation workflow sends the same request
  // under the same key, so whichever path runs first, the provider refunds once.
  compensate: {
    name: ORDER_STEP.refund,
    activity: 'refundPayment',
    retry: 'foreign',
    provider: ORDER_PROVIDER.card,
    input: ({ data, key }) => ({ key, orderId: data.orderId }),
    summary: (i) => `refund order ${i.orderId} · ${i.key}`,
  },
  done: (result, status) => {
    status.chargeId = result.chargeId;
  },
};

/** 3. Send the confirmation email. Nothing to undo. */
const email: OrderStepRow = {
  name: ORDER_STEP.email,
  running: 'emailing',
  activity: 'sendEmail',
  retry: 'foreign',
  provider: ORDER_PROVIDER.mail,
  input: ({ data, key }) => ({
    key,
    orderId: data.orderId,
    to: data.email,
    subject: `Order ${data.orderId} confirmed`,
    body: `Thank you. We charged ${(data.totalMinor / 100).toFixed(2)} ${data.currency}.`,
  }),
  summary: (i) => `confirmation email for ${i.orderId} · ${i.key}`,
};

/**
 * 4. Publish OrderFulfilled (event ID `order:<orderId>:announce`), so shipping and loyalty act
 * on the order once, however often this step runs.
 */
const announce: PublishStep<OrderPlacedData, SagaStatus & OrderFields> = {
  name: ORDER_STEP.announce,
  publish: ORDER_FULFILLED,
  provider: ORDER_PROVIDER.kafka,
  data: ({ data }, status): OrderFulfilledData => ({
    orderId: data.orderId,
    customerId: data.customerId,
    totalMinor: data.totalMinor,
    currency: data.currency,
    ...(status.chargeId !== undefined ? { chargeId: status.chargeId } : {}),
  }),
};

/** The step table, top to bottom. */
export const ORDER_STEPS = [reserve, charge, email, announce] as const;

/** The reserve result's verdict; a result without one (recorded before claims) is the owner's. */
function reserveVerdict(
  result: ReserveResult | undefined,
  fingerprint: string,
): ClaimOutcome | undefined {
  if (result?.verdict === 'duplicate') return { kind: 'duplicate', claim: result.owner };
  if (result?.verdict === 'order-conflict')
    return { kind: 'conflict', claim: result.owner, fingerprint };
  if (result?.verdict === 'owner' && result.reopened)
    return { kind: 'owner', reopened: result.reopened };
  return undefined;
}

/** The order saga: everything but the step table is how the order is claimed and shown. */
export const ORDER_SAGA: SagaDefinition<OrderPlacedData, OrderActivities, OrderFields> = {
  name: 'orderFulfillment',
  domain: ORDERS_DOMAIN,
  entity: { kind: ORDER_KEY_KIND, id: (d) => d.orderId, customerId: (d) => d.customerId },
  steps: ORDER_STEPS,
  claim: {
    step: ORDER_STEP.reserve,
    verdict: (result: ReserveResult, { claimant }) => reserveVerdict(result, claimant.fingerprint),
    // Cancelled before it reserved: claim the order as cancelled, or learn its owner.
    cancelled: {
      activity: 'claimCancelledOrder',
      retry: 'own',
      input: ({ data, claimant }) => ({ orderId: data.orderId, ...claimant }),
      summary: (i) => `claim cancelled order ${i.orderId} for ${i.workflowId}`,
    },
    settle: {
      activity: 'settleOrder',
      input: ({ data, claimant }, settled) => ({
        orderId: data.orderId,
        workflowId: claimant.workflowId,
        runId: claimant.runId,
        fingerprint: claimant.fingerprint,
        settled: settled as 'completed',
      }),
      summary: (i) => `settle order ${i.orderId} as ${i.settled} for ${i.workflowId}`,
    },
  },
  cli: 'orders',
  counterpart: ORDER_COUNTERPARTS,
  channels: { cancel: cancelOrderSignal, status: orderStatusQuery as never },
  status: (d) => ({ orderId: d.orderId }),
  result: (s) => ({ orderId: s.orderId, chargeId: s.chargeId }),
};

/** The orderFulfillment workflow: one order, one set of effects. */
export const orderFulfillment = defineSaga(ORDER_SAGA) as unknown as EntityWorkflow<
  OrderPlacedData,
  OrderResult
>;
