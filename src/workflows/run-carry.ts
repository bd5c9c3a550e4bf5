// What a run carries into the next when it continues as new (a long wait nears Temporal's
// history limit): its status, compensation stack, claim, the journal of what its body already
// did, and the wait episode of the step it is in. The next run replays its body against the
// journal (each primitive's n-th call answers from it) and goes on where the last one stopped,
// with the same keys, the same owner in the claim (the chain's first run ID) and the same
// operator record. Pure (workflow code).
import type { StackEntry } from './run-types';
import type { SagaStatus } from './saga-status';

/**
 * A run continues as new at a safe point once its history passes this many events, if
 * Temporal has not suggested it before (it does at `limit.historyCount.suggestContinueAsNew`,
 * 4 Ki events by default): far below the 51,200 at which Temporal terminates a run.
 */
export const HISTORY_EVENTS_BOUND = 10_000;

/** A step's current wait episode: since its first transient failure in a row. */
export interface WaitEpisode {
  sinceMs: number;
  attempts: number;
  /** The window and interval the step learned from its failures. */
  windowMs?: number;
  intervalMs?: number;
}

/** One primitive call the body made, by its order: a step's result, a wait's deadline or answer. */
export interface JournalEntry {
  /** A step: what it returned, and whether an operator resolved it. */
  value?: unknown;
  resolved?: boolean;
  /** A sleep or a wait: its deadline (epoch ms), and whether it has ended. */
  until?: number;
  done?: boolean;
}

/** The step runner's memo state (attention per stalled step, waited totals). */
export interface RunnerMemo {
  attentions: Array<[string, unknown]>;
  attentionSet: boolean;
  waited: { totalMs: number; maxMs: number };
}

/** Everything a run hands to the run it continues as. */
export interface RunCarry {
  status: SagaStatus;
  stack: StackEntry[];
  claimed: boolean;
  journal: Record<number, JournalEntry>;
  /** The step that was waiting when the run continued: its call's number and its episode. */
  waiting?: { seq: number; step: string; episode: WaitEpisode };
  /** The Step attribute's value the run had written (the next run writes only changes). */
  visibleStep?: string;
  memo: RunnerMemo;
  /** Runs of the chain so far (1 for the first). */
  runs: number;
}

/** Thrown at a safe point: the run continues as new, carrying what `waiting` says. */
export class ContinueAsNewRequested extends Error {
  override readonly name = 'ContinueAsNewRequested';
  constructor(readonly waiting?: RunCarry['waiting']) {
    super('the run continues as new');
  }
}

/** Whether a run's history is long enough to continue as new at its next safe point. */
export function nearHistoryLimit(info: {
  continueAsNewSuggested: boolean;
  historyLength: number;
}): boolean {
  return info.continueAsNewSuggested || info.historyLength >= HISTORY_EVENTS_BOUND;
}
