// What a run shows of itself in visibility: the `Step` search attribute, written only for the
// values an operator queries (parked, waiting, paused, every unhappy ending), and the attributes a
// start without the bridge lacks. Workflow code.
import type { EventWorkflowInput } from '../events/workflow-input';
import { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import type { RunSpec } from './run-types';
import type { SagaRuntime } from './saga-runtime';
import type { SagaStatus } from './saga-status';

/**
 * Step values an operator queries: parked, waiting, and every ending but the happy one, which
 * visibility tells by ExecutionStatus (closed Completed with no Step: src/temporal/run-step.ts),
 * so a happy run's history holds no upsert at all.
 */
function queriedSteps(spec: RunSpec<never>): ReadonlySet<string> {
  return new Set([
    'needs_attention',
    'waiting',
    'cancelled',
    // The body threw: the run unwound and closes Failed (entity-run.ts).
    'failed',
    // What the run cannot refuse filled its history: it unwound (run-budget.ts).
    'history_budget',
    'duplicate',
    `${spec.entity.kind}_conflict`,
    ...spec.outcomes.map((o) => o.replace(/-/g, '_')),
  ]);
}

/**
 * `setStep(step, queried?)` of a run: the status says the step; `Step` changes only to a
 * queried value or back to unset. `queried` marks a value queried for this call (a wait's).
 * `showDetails` refreshes the run's current details after each change.
 */
export function stepWriter<TData, TExtra extends object>(
  spec: RunSpec<TData, TExtra>,
  runtime: SagaRuntime,
  showDetails: () => void,
) {
  const queried = queriedSteps(spec as never);
  return (status: SagaStatus, carried?: string) => {
    /** The Step value in visibility (undefined: not set, the run is running). */
    let visibleStep: string | undefined = carried;
    const setStep = (step: string, queriedToo = false) => {
      status.step = step;
      // A running step clears a waiting/parked value, so those queries never list a run that
      // runs again; otherwise running steps write nothing.
      const next = queried.has(step) || queriedToo ? step : undefined;
      if (next !== visibleStep) {
        runtime.upsertSearchAttributes([{ key: SEARCH_ATTRIBUTE.step, value: next ?? null }]);
        visibleStep = next;
      }
      showDetails();
    };
    return { setStep, visible: () => visibleStep };
  };
}

/** The bridge sets these at start; a start without them (tests, manual starts) gets them here. */
export function startAttributes<TData, TExtra extends object>(
  spec: RunSpec<TData, TExtra>,
  runtime: SagaRuntime,
  input: EventWorkflowInput<TData>,
  entityId: string,
): void {
  if (runtime.startedWith(SEARCH_ATTRIBUTE.eventId)) return;
  const customerId = spec.entity.customerId?.(input.data);
  runtime.upsertSearchAttributes([
    { key: SEARCH_ATTRIBUTE.entityId, value: entityId },
    ...(customerId !== undefined ? [{ key: SEARCH_ATTRIBUTE.customerId, value: customerId }] : []),
    { key: SEARCH_ATTRIBUTE.eventId, value: input.event.eventId },
    { key: SEARCH_ATTRIBUTE.eventType, value: input.event.eventType },
  ]);
}
