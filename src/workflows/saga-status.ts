// What a saga run shows of itself: its status (query), its memo (attention, waited), the
// operator's signals. Pure: imported by workflow code, by clients (tests, ops CLI) and by the
// domains' own definitions.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

/** Every step's completion is a recovery point: done by its activity, or resolved by an operator. */
export interface RecoveryPoint {
  step: string;
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
  /**
   * retry / resolve: the stalled step it means. Default: every stalled step for a retry, the
   * only stalled step for a resolve (steps that run at once may stall together).
   */
  step?: string;
  /** resolve: the step's result as the operator confirms it, for code that reads it. */
  result?: unknown;
}

/**
 * One operator action as the run recorded it (SagaStatus.operatorActions). `reset` is a
 * Temporal reset of the run: the steps after the reset point run again.
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
  step?: string;
  key?: string;
  /** Set when the run did not act on it, and why (a resolve the claim refuses, say). */
  refused?: string;
}

/**
 * The workflow memo key `attention`: why the run waits or is parked, kept where the server
 * shows it (Web UI, `describe()`) even while no worker runs. Absent when nothing is pending.
 */
export const ATTENTION_MEMO = 'attention';
/** The workflow memo key `waited`: total and longest wait on transient causes (chaos report). */
export const WAITED_MEMO = 'waited';

export interface Attention {
  state: 'waiting' | 'parked';
  step: string;
  /** The last failure: type and message. */
  cause: string;
  /** When the step first failed in this episode (ISO, workflow time). */
  since: string;
  /**
   * Waiting: until when at most (ISO); its attempts and the next one's time are the pending
   * activity's (describe, the Web UI's pending activities), retried by Temporal.
   */
  until?: string;
  /** Parked: episodes so far (the first, then one per operator retry). */
  episodes?: number;
  /** Runs of an earlier version: attempts made so far and the next try (ISO). */
  attempt?: number;
  nextTryAt?: string;
  /** What an operator should (or need not) do. */
  action: string;
}

/** Memo `waited`: how long this run waited on transient causes, over all its steps. */
export interface WaitedMemo {
  totalMs: number;
  maxMs: number;
}

/** Where a run is and what it went through: the status query's answer. */
export interface SagaStatus {
  /** The entity the run acts on. */
  entityId: string;
  /**
   * Where the run is: `received`, a step's running name, `waiting`, `needs_attention`,
   * `compensating`, or how it ended; the `Step` search attribute's value where queried.
   */
  step: string;
  /** How the run ended: `completed`, `cancelled`, `duplicate`, `<entity>-conflict`, a business outcome. */
  outcome?: string;
  recoveryPoints: RecoveryPoint[];
  /** Every step's and compensation's idempotency key. */
  keys: Record<string, string>;
  /** Set while parked in needs_attention: the step that ran out of budget and why. */
  parked?: { step: string; error: string; since: string };
  /**
   * Set while a step waits on a transient cause (step `waiting`): memo `attention` too. Its
   * attempts are Temporal's retries of one activity: the pending activity shows them.
   */
  waiting?: { step: string; cause: string; since: string; until: string };
  /** Every operator action received (retry, resolve, cancel), in order. */
  operatorActions?: RecordedOperatorAction[];
  /** Set once a cancellation arrived; `byTemporal` when it came through Temporal's own cancel. */
  cancellation?: { reason: string; requestedAt: string; byTemporal?: boolean };
  /** Set while the run sleeps or waits for a signal or update (its label, until when). */
  pausedFor?: { label: string; kind: 'sleep' | 'signal' | 'update'; until: string };
  /**
   * Set when another run owns the entity (outcome duplicate or conflict): the owner's workflow
   * ID, first execution run ID and payload fingerprint, how the entity settled (when its claim
   * says), and this run's fingerprint. The owner's workflow ID may be this run's own: a re-read
   * of the same event after Temporal forgot the owner.
   */
  owner?: {
    workflowId: string;
    runId?: string;
    fingerprint: string;
    runFingerprint: string;
    settled?: string;
  };
  /**
   * Set when this run is the owner's chain asking again after the entity had settled (a
   * Temporal reset): how it had ended. Its steps run again with the entity's keys.
   */
  reopened?: { settled: string; settledAt: string };
  /** Checkpoints of this run's chain so far: each continued as new (run-checkpoint.ts). */
  checkpoints?: number;
}

/** How a saga run ended: its workflow result. */
export interface SagaResult {
  outcome: string;
  /** Why a business outcome (rejected, declined…) ended the run so. */
  reason?: string;
  /** duplicate / conflict: the workflow ID of the run that owns the entity. */
  owner?: string;
  /** duplicate / conflict: the owner's first execution run ID, when its claim has one. */
  ownerRunId?: string;
  /** duplicate / conflict: how the entity had settled, when its claim says. */
  settled?: string;
  /** conflict: the owner's payload fingerprint. */
  ownerFingerprint?: string;
  /** conflict: this run's payload fingerprint. */
  fingerprint?: string;
}

/** A cancellation (an event or an operator): compensate what was done, once. */
export interface CancelRequest {
  reason: string;
  /** Who cancelled (operator or event); recorded in SagaStatus.operatorActions. */
  by?: string;
  at?: string;
}

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
/** What a run answers an operator's request sent as an update: the calls it acts on. */
export interface OperatorReply {
  /** The stalled calls the request was taken for (their IDs: `charge`, `reserve:apple`). */
  steps: string[];
}

/**
 * Operator, as an update (what the ops CLI sends): like retryStepSignal, but a request the run
 * would refuse (nothing stalled, the history budget spent) is rejected by its validator and
 * writes nothing to the run's history; the sender hears why.
 */
export const retryStepUpdate = defineUpdate<OperatorReply, [OperatorAction]>('operatorRetry');
/** Operator, as an update: like resolveStepSignal, rejected before it writes anything. */
export const resolveStepUpdate = defineUpdate<OperatorReply, [OperatorAction]>('operatorResolve');
/** A saga's cancellation, unless its definition names its own (orders: `cancelOrder`). */
export const cancelSignal = defineSignal<[CancelRequest]>('cancel');
/** A saga's status, unless its definition names its own query (orders: `orderStatus`). */
export const statusQuery = defineQuery<SagaStatus>('status');
