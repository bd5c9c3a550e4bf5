// A database failover waits like a provider outage (docs/operations.md): every activity of
// the worker (a domain's own step, the claim, the settlement; local activities too) that fails
// because our Postgres is going, gone or busy (connection refused or reset, admin shutdown,
// read-only during a failover, a serialization failure) fails as a transient failure carrying
// the worker's window, so its step waits in a waiting round with the same key instead of
// parking after its short `own` budget. Any other database error (a constraint, a missing
// relation, a syntax error) is left as it is: the step parks for an operator.
import { ApplicationFailure } from '@temporalio/common';
import type {
  ActivityExecuteInput,
  ActivityInboundCallsInterceptor,
  Next,
} from '@temporalio/worker';
import {
  DATABASE_UNAVAILABLE,
  type TransientFailureDetails,
} from '../activities/transient-failure';
import { databaseOutageOf } from '../db/pg-faults';

/** The worker's transient settings, as the step runner reads them from a failure. */
export interface OutagePolicy {
  windowMs: number;
  intervalMs?: number;
}

/** Turns a database outage under an activity into a transient failure; the rest passes. */
export class DatabaseOutageInterceptor implements ActivityInboundCallsInterceptor {
  constructor(private readonly policy: OutagePolicy) {}

  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    try {
      return await next(input);
    } catch (err) {
      // Already classified by the activity (a provider's answer, a business failure).
      if (err instanceof ApplicationFailure) throw err;
      const outage = databaseOutageOf(err);
      if (!outage) throw err;
      const details: TransientFailureDetails = {
        transient: true,
        windowMs: this.policy.windowMs,
        ...(this.policy.intervalMs !== undefined ? { intervalMs: this.policy.intervalMs } : {}),
        endpoint: 'PostgreSQL',
        key: '',
      };
      throw ApplicationFailure.create({
        type: DATABASE_UNAVAILABLE,
        message: `our database is unavailable (${outage}): ${(err as Error).message}`,
        nonRetryable: false,
        details: [details],
        cause: err as Error,
      });
    }
  }
}
