// A checkpoint of a long-lived loop: the body passes the state it needs to go on, and the run
// continues as new (a fresh history, the same workflow ID, the claim's owner unchanged: the
// chain's first run ID) with that state and what the engine must not forget: the undos it
// still owes (as data: each is a call's input, never a replay of the body), the steps already
// called (a second call would reuse their keys), and signals received but not yet taken.
// Workflow code.
import type { EventWorkflowInput } from '../events/workflow-input';
import type { RecordedOperatorAction, RecoveryPoint, SagaStatus } from './saga-status';
import type { Ending, RunState } from './run-state';
import type { StackEntry } from './run-types';

/** What a run carries to the next run of its chain at a checkpoint. */
export interface RunResume {
  /** The body's own state, as it passed it to `checkpoint`. */
  body: unknown;
  /** Calls the next run must know: single steps (called once per chain) and owed undos. */
  calls: Array<{ name: string; item?: string; key: string; undo?: StackEntry }>;
  /** Signals received and not yet taken by a wait, by name, in order. */
  mailboxes: Record<string, unknown[]>;
  /** The last recovery points and operator actions, for `show` and the Web UI. */
  recoveryPoints: RecoveryPoint[];
  operatorActions: RecordedOperatorAction[];
  /** Checkpoints so far in this chain. */
  checkpoints: number;
  /** Set when the run moved on while unwinding: how it ends (the next run only unwinds). */
  ending?: Ending;
  /** The cancellation it received, if any (Temporal's closes the chain Canceled). */
  cancellation?: SagaStatus['cancellation'];
}

/** A run's input as the engine reads it: the event's, and what a checkpoint carried. */
export type RunInput<TData> = EventWorkflowInput<TData> & {
  /** Set on the next run of a chain a checkpoint continued as new: what it goes on from. */
  resume?: RunResume;
};

/** How many recovery points and operator actions a checkpoint carries (the latest). */
const CARRIED_TAIL = 20;

/**
 * Thrown through the body by `checkpoint` when the run continues as new: the engine (not the
 * body) closes the run. A body that catches it and goes on finds the run ending.
 */
export class RunCheckpoint extends Error {
  override readonly name = 'RunCheckpoint';
  constructor(
    /** The body's state for the next run. */
    readonly body: unknown,
    /** Signals received and not yet taken, by name. */
    readonly mailboxes: Record<string, unknown[]>,
  ) {
    super('the run continues as new at its checkpoint');
  }
}

/** What this run carries to the next at a checkpoint. */
export function resumeOf(
  state: RunState,
  status: SagaStatus,
  body: unknown,
  mailboxes: Record<string, unknown[]>,
  previous?: RunResume,
  ending?: Ending,
): RunResume {
  const calls: RunResume['calls'] = [];
  for (const call of state.calls.values()) {
    if (call.kind !== 'step' && call.kind !== 'child') continue;
    const undo = call.compensation && !call.compensated ? call.compensation : undefined;
    // An item's call without an undo is forgotten: the body's own state says which items it
    // has done (a chain may loop over millions).
    if (call.item !== undefined && !undo) continue;
    calls.push({
      name: call.name,
      ...(call.item !== undefined ? { item: call.item } : {}),
      key: call.key,
      ...(undo ? { undo } : {}),
    });
  }
  return {
    body,
    calls,
    mailboxes,
    recoveryPoints: status.recoveryPoints.slice(-CARRIED_TAIL),
    operatorActions: (status.operatorActions ?? []).slice(-CARRIED_TAIL),
    checkpoints: (previous?.checkpoints ?? 0) + 1,
    ...(ending ? { ending } : {}),
    ...(status.cancellation ? { cancellation: status.cancellation } : {}),
  };
}

/**
 * A run resumed at a checkpoint: it owns its entity already (the claim is the chain's), its
 * carried calls are done (their undos owed), and its status shows the carried tail.
 */
export function restoreRun(state: RunState, status: SagaStatus, resume: RunResume): void {
  state.claimed = true;
  state.phase = 'running';
  for (const call of resume.calls) {
    const id = call.item === undefined ? call.name : `${call.name}:${call.item}`;
    state.calls.set(id, {
      id,
      name: call.name,
      ...(call.item !== undefined ? { item: call.item } : {}),
      kind: 'step',
      key: call.key,
      state: 'done',
      episodes: 1,
      ...(call.undo ? { compensation: call.undo } : {}),
    });
    if (call.item !== undefined) status.keys[id] = call.key;
  }
  status.recoveryPoints.push(...resume.recoveryPoints);
  if (resume.operatorActions.length > 0) status.operatorActions = [...resume.operatorActions];
  status.checkpoints = resume.checkpoints;
  if (resume.cancellation) status.cancellation = resume.cancellation;
  if (resume.ending) {
    state.ending = resume.ending;
    state.cancelRequested = resume.ending.cause === 'cancel';
    state.phase = 'ending';
  }
}
