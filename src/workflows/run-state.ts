// A run's one explicit state: the phase it is in, and one record per call it made, keyed by the
// call's identity (its step's name, and the item a repeated step names: `reserve:apple`),
// never by the order in which calls happened to complete. Every decision of the run reads
// and writes these records: whether a call stops, what an operator request acts on, what the
// unwind undoes and in which order. Pure (workflow code, and the model of the property test).
//
//   claiming ──► running ──► settling ──► done            (the body returned)
//      │            │           │
//      │            ▼           ▼ (cancel while settling `completed`)
//      └───────► ending ──► compensating ──► settling ──► done
//                (cancel, an uncaught business failure, `fail`, an error in the body)
import type { ClaimRecord, ClaimVerdict } from '../db/entity-claim';
import type { StackEntry } from './run-types';
import { WorkflowDefinitionError } from './names';

/** A claim's verdict that another run owns the entity. */
export type OtherOwner = Exclude<ClaimVerdict<ClaimRecord>, { kind: 'owner' }>;

export type Phase = 'claiming' | 'running' | 'ending' | 'compensating' | 'settling' | 'done';

/** Why a run ends without completing: the outcome its claim settles with. */
export interface Ending {
  outcome: string;
  reason?: string;
  /**
   * `cancel`: a cancellation; `failure`: a business failure or `fail`; `error`: the body threw;
   * `not-owner`: the claim said another run owns the entity (the run ends without acting).
   */
  cause: 'cancel' | 'failure' | 'error' | 'not-owner';
}

/**
 * What a call is: the engine's claim, a step of the body, a child, an undo, the settlement, or
 * a sleep or wait of the body that the history budget parked.
 */
export type CallKind = 'claim' | 'step' | 'child' | 'compensation' | 'settle' | 'wait';

/**
 * Where a call is: `running` (an attempt may be in flight), `waiting` (a transient cause, in its
 * waiting round), `parked` (for an operator), or how it ended: `done`, `resolved` (an operator
 * said its effect happened), `failed` (a business failure: no effect), `stopped` (the run
 * stopped it: its effect may or may not have happened).
 */
export type CallState =
  'running' | 'waiting' | 'parked' | 'done' | 'resolved' | 'failed' | 'stopped';

/** What an operator asked of one stalled call. */
export interface OperatorRequest {
  action: 'retry' | 'resolve';
  /** resolve: the call's result as the operator gives it (`--result`), if any. */
  result?: unknown;
}

export interface CallRecord {
  /** The call's identity: its name, or `<name>:<item>` for a repeated step (`steps.x.each`). */
  id: string;
  name: string;
  item?: string;
  kind: CallKind;
  /** Its idempotency key. */
  key: string;
  /** Its input's size (JSON bytes): what its rounds and retries write again. */
  inputBytes?: number;
  state: CallState;
  /** Episodes so far: the first, then one per operator retry. */
  episodes: number;
  /** Set while waiting or parked: the cause, since when, and (waiting) until when at most. */
  stall?: { cause: string; sinceMs: number; untilMs?: number };
  /** An operator's request, taken by the call at its next wake. */
  request?: OperatorRequest;
  /**
   * A forward call's undo, set before the call starts (its outcome unknown) and replaced once
   * its result is known; cleared when the call failed for a business reason (no effect).
   */
  compensation?: StackEntry;
  /** The undo has run (done or resolved). */
  compensated?: boolean;
  /** Stops the call's attempt in flight (a waiting round, a child); set while one runs. */
  interrupt?: () => void;
}

export interface RunState {
  phase: Phase;
  /** Set once the run ends short of completing; the first reason wins. */
  ending?: Ending;
  /** A cancellation was asked for (signal, Temporal's own cancel, or the run started so). */
  cancelRequested: boolean;
  /** What the settlement in progress records (a cancel stops only `completed`'s). */
  settling?: string;
  /** The engine's or the claiming step's claim says this run owns the entity. */
  claimed: boolean;
  /** The claim said another run owns the entity: this run ends without acting. */
  otherOwner?: OtherOwner;
  /**
   * What the run cannot refuse pushed its history to the last line while it unwinds: its undos
   * and settlement stop where they are, and the next run of its chain goes on with them.
   */
  movingOn?: boolean;
  /** Every call, in the order they started (the unwind goes back through it). */
  calls: Map<string, CallRecord>;
}

export function createRunState(): RunState {
  return { phase: 'claiming', cancelRequested: false, claimed: false, calls: new Map() };
}

/** Calls that may still act: started and not yet ended. */
const ACTIVE: ReadonlySet<CallState> = new Set(['running', 'waiting', 'parked']);

export function isActive(call: CallRecord): boolean {
  return ACTIVE.has(call.state);
}

/** The identity of a call: `<name>`, or `<name>:<item>` for one of a repeated step's calls. */
export function callIdOf(name: string, item?: string): string {
  return item === undefined ? name : `${name}:${item}`;
}

/**
 * Opens the record of a call. A step or child is called once per run under its identity: a
 * second call of the same step would send the same idempotency key for another intent (the
 * provider answers it with the first call's result, and both undos share one key), so it is
 * refused, naming the step. The engine's own calls (the claim, an undo, the settlement) may be
 * opened again: a retried settlement is the same call.
 */
export function openCall(
  state: RunState,
  call: Pick<CallRecord, 'name' | 'item' | 'kind' | 'key'>,
): CallRecord {
  const id = callIdOf(call.name, call.item);
  const earlier = state.calls.get(id);
  if (earlier && (call.kind === 'step' || call.kind === 'child'))
    throw new WorkflowDefinitionError(
      call.item === undefined
        ? `${call.kind} ${call.name} was called a second time in one run: each call needs its own key; call it once per item with steps.${call.name}.each(itemId, input)`
        : `${call.kind} ${call.name} was called a second time for item ${JSON.stringify(call.item)}: each item is one call`,
    );
  const record: CallRecord = { ...call, id, state: 'running', episodes: 1 };
  // A retried engine call keeps its place in the order (an undo's, the settlement's).
  if (earlier) Object.assign(earlier, record);
  else state.calls.set(id, record);
  return earlier ?? record;
}

/**
 * Whether the run stops this call now. Forward calls (steps, children, the claim) stop once
 * the run no longer runs forward; the settlement of `completed` stops for a cancellation
 * (the run then unwinds and settles `cancelled`); an undo never stops: it is the unwind.
 */
export function shouldStop(state: RunState, call: CallRecord): boolean {
  switch (call.kind) {
    case 'step':
    case 'child':
      return state.phase !== 'running';
    case 'claim':
      return state.cancelRequested;
    case 'settle':
      // A completed run's settlement is its last call: it is not moved to another run.
      return state.settling === 'completed' ? state.cancelRequested : !!state.movingOn;
    case 'compensation':
      return !!state.movingOn;
    case 'wait':
      return state.phase !== 'running';
  }
}

/** Whether the body may start another call (a step, a child, a sleep or a wait). */
export function bodyOpen(state: RunState): boolean {
  return state.phase === 'running';
}

/**
 * The run ends short of completing (the first reason wins): from `claiming` or `running` it
 * stops going forward. Returns whether this reason is the one the run ends with.
 */
export function endRun(state: RunState, ending: Ending): boolean {
  if (state.ending) return false;
  if (state.phase !== 'claiming' && state.phase !== 'running' && state.phase !== 'settling')
    return false;
  if (state.phase === 'settling' && !(ending.cause === 'cancel' && state.settling === 'completed'))
    return false;
  state.ending = ending;
  if (state.phase !== 'settling') state.phase = 'ending';
  return true;
}

/**
 * The claim said another run owns the entity: the run stops going forward at once (a body
 * that catches the error still cannot act) and ends without acting, whatever else ends it.
 */
export function learnOtherOwner(state: RunState, verdict: OtherOwner): void {
  state.otherOwner ??= verdict;
  endRun(state, { outcome: verdict.kind, cause: 'not-owner' });
}

/**
 * Whether a forward call must wait for the claim's verdict first (claims first): a run whose
 * claim a step of its own makes acts on nothing else until that step says it owns the entity.
 * `unstarted` when the claiming step has not even started (it may be about to, in the same
 * `Promise.all`).
 */
export function claimGate(
  state: RunState,
  claimStep: string | undefined,
  name: string,
): 'open' | 'pending' | 'unstarted' | 'failed' {
  if (claimStep === undefined || state.claimed || name === claimStep) return 'open';
  const claiming = state.calls.get(claimStep);
  if (!claiming) return 'unstarted';
  return claiming.state === 'failed' ? 'failed' : 'pending';
}

/**
 * Why a forward call may never start: the claiming step was not started with it or before, or
 * it failed (a business failure: no claim was made, so nothing may act).
 */
export function unclaimedCall(
  claimStep: string,
  name: string,
  failed = false,
): WorkflowDefinitionError {
  return new WorkflowDefinitionError(
    failed
      ? `${name} was called after ${claimStep}, the step that claims the entity, failed: no claim was made, so nothing may act; let its failure end the run`
      : `${name} was called before ${claimStep}, the step that claims the entity: nothing may act before the claim says this run owns it; call ${claimStep} first (or beside it, in one Promise.all)`,
  );
}

/** A cancellation arrived: recorded always; the run ends `cancelled` where that still can be. */
export function requestCancel(state: RunState, reason: string): boolean {
  state.cancelRequested = true;
  return endRun(state, { outcome: 'cancelled', reason, cause: 'cancel' });
}

/** The calls whose effect may exist and whose undo has not run: last started first. */
export function unwindOrder(state: RunState): CallRecord[] {
  return [...state.calls.values()]
    .filter((c) => c.compensation !== undefined && !c.compensated)
    .reverse();
}

/** Calls started and not yet ended (the run waits for each before it unwinds). */
export function activeCalls(state: RunState): number {
  let n = 0;
  for (const call of state.calls.values()) if (isActive(call)) n++;
  return n;
}

/** Undos still owed: the unwind the run may yet need. */
export function owedUndos(state: RunState): number {
  let n = 0;
  for (const call of state.calls.values()) if (call.compensation && !call.compensated) n++;
  return n;
}

/** Calls waiting or parked now. */
export function stalledCalls(state: RunState): CallRecord[] {
  return [...state.calls.values()].filter((c) => c.state === 'waiting' || c.state === 'parked');
}

/** What the run shows while calls stall: parked wins over waiting, both over running. */
export function visibleStep(state: RunState, running: string): string {
  const stalled = stalledCalls(state);
  if (stalled.some((c) => c.state === 'parked')) return 'needs_attention';
  if (stalled.some((c) => c.state === 'waiting')) return 'waiting';
  return running;
}

/**
 * The calls an operator request acts on: the one it names (if stalled), else every stalled
 * call for a retry (each repeats its effect under its own key), else the only stalled call
 * for a resolve. A resolve that names none while several stall acts on nothing: resolving
 * says an effect happened, which an operator must say of one call at a time.
 */
export function targetsOf(
  state: RunState,
  action: OperatorRequest['action'],
  step: string | undefined,
): { calls: CallRecord[]; refused?: string } {
  const stalled = stalledCalls(state);
  if (step !== undefined) {
    const named = stalled.find((c) => c.id === step);
    return named
      ? { calls: [named] }
      : { calls: [], refused: `step ${step} is not waiting or parked` };
  }
  if (action === 'retry' || stalled.length <= 1) return { calls: stalled };
  return {
    calls: [],
    refused: `several steps are stalled (${stalled.map((c) => c.id).join(', ')}): name the one to resolve`,
  };
}
