// Signals, queries, status types and key derivation of the order workflows. Pure: imported by
// workflow code, by clients (tests, ops CLI) and by the cancellation workflow.
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** Steps whose completion is a recovery point; each has its own idempotency key. */
export type StepName = 'reserve' | 'charge' | 'email' | 'refund' | 'release';

/** Where an order is; also the value of the OrderStep search attribute. */
export type OrderStep =
  | 'received'
  | 'reserving'
  | 'charging'
  | 'emailing'
  | 'completed'
  | 'rejected'
  | 'declined'
  | 'needs_attention'
  | 'compensating'
  | 'cancelled';

export type OrderOutcome = 'completed' | 'rejected' | 'declined' | 'cancelled';

export interface RecoveryPoint {
  step: StepName;
  /** Workflow time (deterministic) at which the step's completion was recorded. */
  at: string;
  /** `done`: the activity completed; `resolved`: an operator marked it resolved. */
  how: 'done' | 'resolved';
}

export interface OrderStatus {
  orderId: string;
  step: OrderStep;
  outcome?: OrderOutcome;
  recoveryPoints: RecoveryPoint[];
  keys: Record<StepName, string>;
  /** Set while parked in needs_attention: the step that ran out of budget and why. */
  parked?: { step: StepName; error: string; since: string };
  cancellation?: { reason: string; requestedAt: string };
  chargeId?: string;
}

export interface OrderResult {
  orderId: string;
  outcome: OrderOutcome;
  chargeId?: string;
  /** Why a rejected or declined order ended so. */
  reason?: string;
}

export interface CancelOrderRequest {
  reason: string;
}

/** Cancels the order (OrderCancelled event or operator): compensates what was done, once. */
export const cancelOrderSignal = defineSignal<[CancelOrderRequest]>('cancelOrder');
/** Operator: run the parked step again with the same key. */
export const retryStepSignal = defineSignal<[]>('retryStep');
/** Operator: the parked step's effect is confirmed (or not needed); continue after it. */
export const resolveStepSignal = defineSignal<[]>('resolveStep');
export const orderStatusQuery = defineQuery<OrderStatus>('orderStatus');

/**
 * The idempotency key of a step: `<workflowId>:<step>`. Derived, never random or
 * time-based, so it is the same across retries, worker crashes, resets, and for the
 * cancellation workflow compensating a closed order.
 */
export function stepKey(workflowId: string, step: StepName): string {
  return `${workflowId}:${step}`;
}

export function stepKeys(workflowId: string): Record<StepName, string> {
  const steps: StepName[] = ['reserve', 'charge', 'email', 'refund', 'release'];
  return Object.fromEntries(steps.map((s) => [s, stepKey(workflowId, s)])) as Record<
    StepName,
    string
  >;
}
