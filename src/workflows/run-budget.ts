// How a run stays under Temporal's history limit without continuing as new. A call costs the
// same few events however long it waits (its waiting round is one activity that Temporal
// retries: attempts write no events), so the events a run can still need are bounded by the
// undos it owes. Two budgets keep that room: a forward call starts only while the history
// plus the unwind it may need stays under FORWARD_BUDGET (past it the call parks, for an
// operator to resolve or cancel), and an operator's retry is taken only under RETRY_BUDGET.
// Between RETRY_BUDGET and the limit there is always room for the whole unwind. Pure.

/** Temporal terminates a run at this many events (`limit.historyCount.error`'s default). */
export const TEMPORAL_HISTORY_LIMIT = 51_200;

/**
 * The most events one call takes without an operator: its fast round (scheduled, started,
 * failed), its waiting round (the same three), its park, the Step and memo upserts of each
 * change, and the workflow tasks around them (three events each). Measured on the real stack
 * by test/integration/workflows/history-bound.test.ts (a call that waits its whole window and
 * parks takes 20), with room to spare.
 */
export const EVENTS_PER_CALL = 32;

/** A forward call starts only while history + the unwind it may need stays under this. */
export const FORWARD_BUDGET = 30_000;

/** An operator retry is taken only while history + the unwind still owed stays under this. */
export const RETRY_BUDGET = 42_000;

/** The events a run may still need to undo what it did: each owed undo, and its settlement. */
export function reservedEvents(owedUndos: number): number {
  return (owedUndos + 2) * EVENTS_PER_CALL;
}

/**
 * Why a forward call may not start, or undefined: history and the unwind it may need would
 * pass FORWARD_BUDGET. The call parks with this as its cause.
 */
export function forwardRefusal(historyLength: number, owedUndos: number): string | undefined {
  const needed = historyLength + reservedEvents(owedUndos + 1);
  if (needed <= FORWARD_BUDGET) return undefined;
  return `the run's history holds ${historyLength} events; with the unwind it may need (${reservedEvents(owedUndos + 1)}) it would pass ${FORWARD_BUDGET}, the budget that keeps it under Temporal's limit (${TEMPORAL_HISTORY_LIMIT}) without continuing as new: resolve or cancel, or split the work into smaller runs`;
}

/** Why an operator retry is refused, or undefined. */
export function retryRefusal(historyLength: number, owedUndos: number): string | undefined {
  const needed = historyLength + reservedEvents(owedUndos);
  if (needed <= RETRY_BUDGET) return undefined;
  return `the run's history holds ${historyLength} events; another retry could leave no room for its unwind under Temporal's limit (${TEMPORAL_HISTORY_LIMIT}): resolve or cancel`;
}
