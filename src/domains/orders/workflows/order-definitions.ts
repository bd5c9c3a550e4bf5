// The order domain's words for its runs: steps, outcomes, status, result, its cancellation
// signal and status query, its keys. Pure: imported by workflow code, by clients (tests, ops
// CLI) and by the cancellation workflow. The engine's operator vocabulary (the retry and
// resolve signals, the memo, recovery points) is the same for every domain; it is named here
// too, so an order's client imports one module.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { stepKey as engineStepKey } from '../../../workflows/step-key';
import type {
  CancelRequest,
  RecordedOperatorAction,
  RecoveryPoint as EngineRecoveryPoint,
} from '../../../workflows/saga-status';
import type { SettledState } from './order-claim';

export { MAX_KEY_LENGTH } from '../../../workflows/step-key';
export {
  ATTENTION_MEMO,
  WAITED_MEMO,
  resolveStepSignal,
  retryStepSignal,
  type Attention,
  type OperatorAction,
  type RecordedOperatorAction,
  type WaitedMemo,
} from '../../../workflows/saga-status';

/**
 * The order saga's steps and compensations, each with its own idempotency key: the one place
 * their names are written (the step table, the cancellation workflow and clients read them).
 */
export const ORDER_STEP = {
  reserve: 'reserve',
  charge: 'charge',
  email: 'email',
  announce: 'announce',
  refund: 'refund',
  release: 'release',
} as const;

/**
 * The providers the order's steps call (each on its own task queue, limited by
 * PROVIDER_RATE_LIMITS): the payment provider's charge and refund, the mail provider's
 * confirmation, Kafka's OrderFulfilled.
 */
export const ORDER_PROVIDER = { card: 'card', mail: 'mail', kafka: 'kafka' } as const;

/** Steps whose completion is a recovery point; each has its own idempotency key. */
export type StepName = (typeof ORDER_STEP)[keyof typeof ORDER_STEP];

/**
 * The event an order publishes when it is done (its `announce` step): the event ID is the
 * step's key `order:<orderId>:announce`, the record key the order ID, the topic
 * ORDERS_EVENTS_TOPIC.
 */
export const ORDER_FULFILLED = 'OrderFulfilled';

/** OrderFulfilled's data: what a consumer downstream (shipping, loyalty) needs of the order. */
export interface OrderFulfilledData {
  orderId: string;
  customerId: string;
  totalMinor: number;
  currency: string;
  chargeId?: string;
}

/** The first part of every order key: `order:<orderId>:<step>`. */
export const ORDER_KEY_KIND = 'order';

/** Where an order is; also the value of the Step search attribute where it is queried. */
export type OrderStep =
  | 'received'
  | 'reserving'
  | 'charging'
  | 'emailing'
  | 'completed'
  | 'rejected'
  | 'declined'
  /** A step is retrying a transient cause (provider down, 5xx, 429…) with the same key. */
  | 'waiting'
  /** Parked: a step failed for good or its retry window ran out; an operator decides. */
  | 'needs_attention'
  | 'compensating'
  | 'cancelled'
  /** Another run owns this order with the same payload: this run did nothing. */
  | 'duplicate'
  /** Another run owns this order with a different payload: this run did nothing. */
  | 'order_conflict';

/**
 * How a run ended. `duplicate`: another workflow already owns the order (its claim) with the
 * same payload fingerprint; `order-conflict`: it owns it with a different one. Neither acted.
 */
export type OrderOutcome =
  'completed' | 'rejected' | 'declined' | 'cancelled' | 'duplicate' | 'order-conflict';

/** An order's recovery point (src/workflows/saga-status.ts), by its step's name. */
export interface RecoveryPoint extends EngineRecoveryPoint {
  step: StepName;
}

/** The orderStatus query's answer: the engine's saga status in the order's words. */
export interface OrderStatus {
  orderId: string;
  /** The engine's name for the order ID (set by every run since the saga engine). */
  entityId?: string;
  step: OrderStep;
  outcome?: OrderOutcome;
  recoveryPoints: RecoveryPoint[];
  keys: Record<StepName, string>;
  /** Set while parked in needs_attention: the step that ran out of budget and why. */
  parked?: { step: StepName; error: string; since: string };
  /** Set while a step waits on a transient cause (step `waiting`): memo `attention` too. */
  waiting?: { step: StepName; cause: string; since: string; until: string };
  /** Every operator action received (retry, resolve, cancel), in order. */
  operatorActions?: Array<RecordedOperatorAction & { step?: StepName }>;
  cancellation?: { reason: string; requestedAt: string };
  chargeId?: string;
  /** Another run owns the order (src/workflows/saga-status.ts, SagaStatus.owner). */
  owner?: {
    workflowId: string;
    runId?: string;
    fingerprint: string;
    runFingerprint: string;
    settled?: SettledState;
  };
  /** The owner's chain asked again after the order had settled (a Temporal reset). */
  reopened?: { settled: SettledState; settledAt: string };
}

export interface OrderResult {
  orderId: string;
  outcome: OrderOutcome;
  chargeId?: string;
  /** Why a rejected or declined order ended so. */
  reason?: string;
  /** duplicate / order-conflict: the workflow ID of the run that owns the order. */
  owner?: string;
  /** duplicate / order-conflict: the owner's first execution run ID, when its claim has one. */
  ownerRunId?: string;
  /** duplicate / order-conflict: how the order had settled, when its claim says. */
  settled?: SettledState;
  /** order-conflict: the owner's payload fingerprint. */
  ownerFingerprint?: string;
  /** order-conflict: this run's payload fingerprint. */
  fingerprint?: string;
}

/** A cancellation of an order (an OrderCancelled event or an operator). */
export type CancelOrderRequest = CancelRequest;

/** Cancels the order (OrderCancelled event or operator): compensates what was done, once. */
export const cancelOrderSignal = defineSignal<[CancelOrderRequest]>('cancelOrder');
export const orderStatusQuery = defineQuery<OrderStatus>('orderStatus');

/**
 * The idempotency key of an order's step: `order:<orderId>:<step>`, at most 255 printable
 * ASCII characters (src/workflows/step-key.ts).
 */
export function stepKey(orderId: string, step: StepName): string {
  return engineStepKey(ORDER_KEY_KIND, orderId, step);
}

export function stepKeys(orderId: string): Record<StepName, string> {
  return Object.fromEntries(
    Object.values(ORDER_STEP).map((s) => [s, stepKey(orderId, s)]),
  ) as Record<StepName, string>;
}
