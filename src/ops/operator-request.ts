// How the CLI asks a run to retry or resolve a stalled call: as an update, so that a request
// the run would refuse (nothing stalled, the history budget spent) is rejected by its
// validator before it writes anything, and the operator hears why at once. A run of a build
// from before the updates existed (pinned to it) gets the signal it knows. `--step` names the
// call when several stall; `--result` is the resolved call's result as JSON (the body and the
// call's undo then use it).
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  resolveStepSignal,
  resolveStepUpdate,
  retryStepSignal,
  retryStepUpdate,
  type OperatorAction,
  type OperatorReply,
} from '../workflows/saga-status';
import { InvalidStateError, UsageError } from './output';

/** The options `retry` and `resolve` take besides `--by` and `--reason`. */
export const REQUEST_OPTIONS = {
  step: { type: 'string' },
  result: { type: 'string' },
} as const;

/** The request of one command: the stalled call it names, and (resolve) its result. */
export function requestOf(
  action: 'retry' | 'resolve',
  operator: OperatorAction,
  values: { step?: string; result?: string },
): OperatorAction {
  const request: OperatorAction = { ...operator };
  if (values.step !== undefined) request.step = values.step;
  if (values.result !== undefined) {
    if (action !== 'resolve') throw new UsageError('--result goes with resolve only');
    try {
      request.result = JSON.parse(values.result) as unknown;
    } catch (err) {
      throw new UsageError(`--result must be JSON (${(err as Error).message})`);
    }
  }
  return request;
}

/** Whether the run has no handler for the update (a build from before it existed). */
function unknownUpdate(err: WorkflowUpdateFailedError): boolean {
  const cause = err.cause;
  return (
    cause instanceof ApplicationFailure &&
    (cause.type === 'ReferenceError' || /no registered handler/i.test(cause.message))
  );
}

/** What the run did with the request: the calls it acts on, or that it only got a signal. */
export interface RequestOutcome {
  via: 'update' | 'signal';
  /** The calls the run took the request for (update only). */
  steps?: string[];
}

/**
 * Sends `retry` or `resolve` to the run. Throws InvalidStateError with the run's own words
 * when it refuses the request.
 */
export async function sendOperatorRequest(
  handle: WorkflowHandle,
  action: 'retry' | 'resolve',
  request: OperatorAction,
): Promise<RequestOutcome> {
  const update = action === 'retry' ? retryStepUpdate : resolveStepUpdate;
  try {
    const reply: OperatorReply = await handle.executeUpdate(update, { args: [request] });
    return { via: 'update', steps: reply.steps };
  } catch (err) {
    if (!(err instanceof WorkflowUpdateFailedError)) throw err;
    if (!unknownUpdate(err))
      throw new InvalidStateError(
        `the run refused ${action}: ${err.cause?.message ?? err.message}`,
      );
  }
  await handle.signal(action === 'retry' ? retryStepSignal : resolveStepSignal, request);
  return { via: 'signal' };
}
