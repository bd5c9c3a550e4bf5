// Where a run is or how it ended, read from visibility: the `Step` search attribute, which a
// run writes only for values an operator queries, and the run's status for the one ending it
// does not write. Client side only (ops CLI, reconcile, the harness).
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { SEARCH_ATTRIBUTE, SYSTEM_ATTRIBUTE, visibility } from './search-attributes';

/**
 * The happy ending. A run that ends so closes `Completed` without writing `Step` (one history
 * event and one visibility write less per run); every other ending writes its value.
 */
export const COMPLETED_STEP = 'completed';

/** A run's Step: its `Step` attribute, else `completed` for a run that closed Completed. */
export function runStepOf(
  info: Pick<WorkflowExecutionInfo, 'typedSearchAttributes' | 'status'>,
): string | undefined {
  const step = info.typedSearchAttributes.get(SEARCH_ATTRIBUTE.step);
  if (step !== undefined) return step;
  return info.status.name === 'COMPLETED' ? COMPLETED_STEP : undefined;
}

/**
 * The visibility term for runs at `step`. `completed`: closed Completed with no `Step`, or
 * with `Step = completed` (what runs wrote before the happy ending stopped writing it).
 */
export function stepTerm(step: string): string {
  const written = visibility.equals(SEARCH_ATTRIBUTE.step, step);
  if (step !== COMPLETED_STEP) return written;
  const closedWithout = visibility.allOf(
    visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, 'Completed'),
    visibility.isUnset(SEARCH_ATTRIBUTE.step),
  );
  return visibility.anyOf(written, `(${closedWithout})`);
}
