// An activity's result travels in the run's history like its input, and Temporal fails the
// workflow task for ever on a payload over its blob limit (2 MB), or the completion itself on
// a gRPC message over 4 MB. A result over what one call may carry (run-budget.ts
// MAX_PAYLOAD_BYTES) is therefore never returned: the attempt fails, not to be retried, with a
// message that says so. Its effect did happen (the activity returned), so the call parks and
// an operator resolves it, giving the part of the result the run needs (`resolve --result`).
import { ApplicationFailure } from '@temporalio/common';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  Next,
} from '@temporalio/worker';
import { MAX_PAYLOAD_BYTES, payloadBytes } from '../workflows/run-budget';

/** The failure type of a result too large to record (the call parks, its effect done). */
export const RESULT_TOO_LARGE = 'ResultTooLarge';

/** Refuses an activity's result over MAX_PAYLOAD_BYTES with a non-retryable failure. */
export class ResultSizeInterceptor implements ActivityInboundCallsInterceptor {
  constructor(
    /** The activity's type, for the message. */
    private readonly activity: string,
  ) {}

  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    const result = await next(input);
    const bytes = payloadBytes(result);
    if (bytes <= MAX_PAYLOAD_BYTES) return result;
    throw ApplicationFailure.create({
      type: RESULT_TOO_LARGE,
      nonRetryable: true,
      message: `the result of ${this.activity} is ${Math.round(bytes / 1024)} KiB of JSON, over the ${MAX_PAYLOAD_BYTES / 1024} KiB a call may carry in Temporal's history: its effect happened; resolve the call with the part of the result the run needs (resolve --result), and have the activity return a reference instead of the data`,
    });
  }
}
