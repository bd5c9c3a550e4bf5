// Signals, queries, status types and key derivation of the order workflows. Pure: imported by
// workflow code, by clients (tests, ops CLI) and by the cancellation workflow.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { SettledState } from '../db/order-claim';
import { sha256Hex, utf8Bytes } from '../util/sha256';

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

export interface RecoveryPoint {
  step: StepName;
  /** Workflow time (deterministic) at which the step's completion was recorded. */
  at: string;
  /** `done`: the activity completed; `resolved`: an operator marked it resolved. */
  how: 'done' | 'resolved';
}

/** Who asked an operator action, and why (signal payload; all optional for old senders). */
export interface OperatorAction {
  /** `--by` or the OS user of the operator; an event or workflow for automatic senders. */
  by: string;
  reason?: string;
  /** When it was asked (ISO); default: the workflow time the signal arrived. */
  at?: string;
}

/**
 * One operator action as the workflow recorded it (OrderStatus.operatorActions). `reset` is a
 * Temporal reset of this order's run: the steps after the reset point run again.
 */
export interface RecordedOperatorAction {
  action: 'retry' | 'resolve' | 'cancel' | 'reset';
  by: string;
  reason?: string;
  at: string;
  /**
   * retry / resolve: the parked or waiting step it acted on and that step's key. A retry runs
   * the step's effect again under that key; a provider that has forgotten the key (its
   * retention, e.g. 24 h) acts again, so the record says which effect was repeated.
   */
  step?: StepName;
  key?: string;
}

/**
 * The workflow memo key `attention`: why the order waits or is parked, kept where the server
 * shows it (Web UI, `describe()`) even while no worker runs. Absent when nothing is pending.
 */
export const ATTENTION_MEMO = 'attention';
/** The workflow memo key `waited`: total and longest wait on transient causes (chaos report). */
export const WAITED_MEMO = 'waited';

export interface Attention {
  state: 'waiting' | 'parked';
  step: StepName;
  /** The last failure: type and message. */
  cause: string;
  /** When the step first failed in this episode (ISO, workflow time). */
  since: string;
  /** Attempts made so far (the activity's own retries included). */
  attempt?: number;
  /** Waiting: when the next attempt starts (ISO). */
  nextTryAt?: string;
  /** What an operator should (or need not) do. */
  action: string;
}

/** Memo `waited`: how long this order waited on transient causes, over all its steps. */
export interface WaitedMemo {
  totalMs: number;
  maxMs: number;
}

export interface OrderStatus {
  orderId: string;
  step: OrderStep;
  outcome?: OrderOutcome;
  recoveryPoints: RecoveryPoint[];
  keys: Record<StepName, string>;
  /** Set while parked in needs_attention: the step that ran out of budget and why. */
  parked?: { step: StepName; error: string; since: string };
  /** Set while a step waits on a transient cause (step `waiting`): memo `attention` too. */
  waiting?: { step: StepName; cause: string; since: string; attempt: number; nextTryAt: string };
  /** Every operator action received (retry, resolve, cancel), in order. */
  operatorActions?: RecordedOperatorAction[];
  cancellation?: { reason: string; requestedAt: string };
  chargeId?: string;
  /**
   * Set when another run owns the order (outcome duplicate or order-conflict): the owner's
   * workflow ID, first execution run ID and payload fingerprint, how the order settled (when
   * its claim says), and this run's fingerprint. The owner's workflow ID may be this run's
   * own: a re-read of the same event after Temporal forgot the owner.
   */
  owner?: {
    workflowId: string;
    runId?: string;
    fingerprint: string;
    runFingerprint: string;
    settled?: SettledState;
  };
  /**
   * Set when this run is the owner's chain asking again after the order had settled (a
   * Temporal reset): how the order had ended. Its steps run again with the order's keys.
   */
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

export interface CancelOrderRequest {
  reason: string;
  /** Who cancelled (operator or event); recorded in OrderStatus.operatorActions. */
  by?: string;
  at?: string;
}

/** Cancels the order (OrderCancelled event or operator): compensates what was done, once. */
export const cancelOrderSignal = defineSignal<[CancelOrderRequest]>('cancelOrder');
/**
 * Operator: run the parked (or waiting) step again now, with the same key. The payload is
 * optional: senders from before operator actions were recorded send none.
 */
export const retryStepSignal = defineSignal<[OperatorAction?]>('retryStep');
/**
 * Operator: the parked (or waiting) step's effect is confirmed (or not needed); continue
 * after it. Payload optional, as for retryStep.
 */
export const resolveStepSignal = defineSignal<[OperatorAction?]>('resolveStep');
export const orderStatusQuery = defineQuery<OrderStatus>('orderStatus');

/** Longest idempotency key we send: Stripe's limit, and the sandbox provider's. */
export const MAX_KEY_LENGTH = 255;

/**
 * Characters an order ID keeps in a key: printable ASCII except `%`, which escapes everything
 * else (space, control characters, non-ASCII as UTF-8 bytes). The key travels in an HTTP
 * header, where only ASCII is safe, and the escaping keeps distinct order IDs distinct.
 */
function escapeKeyPart(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code > 0x20 && code < 0x7f && ch !== '%') out += ch;
    else for (const b of utf8Bytes(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The idempotency key of a step: `order:<orderId>:<step>`. Derived from the business intent
 * (the order and the step), never from the workflow ID, so a second workflow for the same
 * order (a producer re-send under a fresh identity) would hit the same keys even if it got
 * past the order claim; never random or time-based, so retries, worker crashes, resets and
 * the cancellation workflow all use the same key. At most MAX_KEY_LENGTH ASCII characters
 * whatever the order ID: a longer one keeps a readable head and ends with `~` and 32 hex
 * digits of the SHA-256 of the order ID. Pure (workflow code derives keys).
 */
export function stepKey(orderId: string, step: StepName): string {
  const escaped = escapeKeyPart(orderId);
  const full = `order:${escaped}:${step}`;
  if (full.length <= MAX_KEY_LENGTH) return full;
  const hash = sha256Hex(orderId).slice(0, 32);
  const room = MAX_KEY_LENGTH - `order:~${hash}:${step}`.length;
  // Never cut an escape (`%C3`) in half: the head stays valid, readable text.
  const head = escaped.slice(0, room).replace(/%[0-9A-F]?$/, '');
  return `order:${head}~${hash}:${step}`;
}

export function stepKeys(orderId: string): Record<StepName, string> {
  const steps: StepName[] = ['reserve', 'charge', 'email', 'refund', 'release'];
  return Object.fromEntries(steps.map((s) => [s, stepKey(orderId, s)])) as Record<StepName, string>;
}
