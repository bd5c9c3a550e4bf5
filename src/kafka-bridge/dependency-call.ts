import { RetryAbortedError, type RetryOptions } from './backoff';
import { describeError, type ErrorClassification } from './classify-error';
import { OPERATOR_FAULTS, type Dependency } from './error-codes';
import { adviseFault } from './fault-advice';
import type { StepContext, StepControls } from './step-context';

export type { Dependency } from './error-codes';

/** A failed call of one dependency; the original error is the cause (classified from it). */
export class DependencyCallError extends Error {
  override readonly name = 'DependencyCallError';
  constructor(
    readonly dependency: Dependency,
    cause: unknown,
    /** What was called on, when it helps name the fix (the DLQ topic). */
    readonly target?: string,
  ) {
    super(`${dependency}: ${describeError(cause)}`, { cause });
  }
}

/** How often an in-flight call checks ownership and heartbeats (kafkajs throttles the latter). */
const KEEPALIVE_MS = 250;

/**
 * How long a call may be in flight before its partition counts as waiting on the dependency
 * (StepControls.onWait), though it has not failed yet: a healthy start, statement, DLQ write
 * or registry lookup takes milliseconds to a few hundred; one that hangs (a stopped server,
 * Temporal's client retrying UNAVAILABLE inside one call for ~20 s) would otherwise hold the
 * partition's batch, and with it the consumer's fetches, until it fails.
 */
export const SLOW_CALL_MS = 1500;

/**
 * How long a call may still finish after its partition was lost before it is abandoned: a
 * healthy start or statement takes milliseconds and its result is worth keeping (it records
 * the start, so the new owner finds it in the ledger); a call hung on an outage is not worth
 * holding the group's rebalance for.
 */
export const ABANDON_GRACE_MS = 2000;

/**
 * Runs one dependency call (`fn`) for a partition: its failure is tagged with the dependency
 * (DependencyCallError, classified from its cause); while it is in flight the consumer keeps
 * heartbeating (a Temporal call retries internally for ~20 s, a statement waits up to its
 * timeout: longer than a short session), and once the partition is no longer ours the call is
 * abandoned (RetryAbortedError) after a short grace ({@link ABANDON_GRACE_MS}): its result,
 * if any, is ignored and the new owner deduplicates whatever it did. Abandoning also aborts
 * `signal`, so a call that honours it (the Temporal client's `withAbortSignal`) stops its own
 * internal retries instead of running on, unobserved, into a connection closed at shutdown.
 * A call still in flight after {@link SLOW_CALL_MS} reports its partition waiting
 * (`controls.onWait`), so the bridge pauses the partition instead of holding its consumer.
 */
export async function callDependency<T>(
  dependency: Dependency,
  fn: (signal: AbortSignal) => Promise<T>,
  controls: Pick<StepControls, 'heartbeat' | 'ownsPartition' | 'onWait'>,
  target?: string,
): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let lostAt: number | undefined;
  const startedAt = Date.now();
  let slow = false;
  const lost = new Promise<never>((_, reject) => {
    timer = setInterval(() => {
      if (!slow && Date.now() - startedAt >= SLOW_CALL_MS) {
        slow = true;
        controls.onWait?.({ dependency, fault: 'slow' });
      }
      if (!controls.ownsPartition()) {
        lostAt ??= Date.now();
        if (Date.now() - lostAt >= ABANDON_GRACE_MS)
          reject(new RetryAbortedError(dependency, new Error('partition no longer ours')));
        return;
      }
      controls.heartbeat().catch(() => undefined);
    }, KEEPALIVE_MS);
  });
  const work = (async () => {
    try {
      return await fn(abort.signal);
    } catch (err) {
      throw new DependencyCallError(dependency, err, target);
    }
  })();
  let settled = false;
  try {
    const result = await Promise.race([work, lost]);
    settled = true;
    return result;
  } catch (err) {
    settled = !(err instanceof RetryAbortedError);
    throw err;
  } finally {
    clearInterval(timer);
    if (!settled) abort.abort(new Error('partition no longer ours'));
    // An abandoned call may still fail later (aborted); nobody waits for it any more.
    work.catch(() => undefined);
    lost.catch(() => undefined);
  }
}

/** Retry options for one step of a partition: metrics and a log line per failed try. */
export function retryOptions(ctx: StepContext, what: string, maxAttempts?: number): RetryOptions {
  const { deps, controls } = ctx;
  return {
    what,
    shouldContinue: controls.shouldContinue,
    heartbeat: controls.heartbeat,
    backoff: deps.backoff,
    maxAttempts: maxAttempts ?? deps.maxAttempts,
    onRetry: (
      err: unknown,
      classification: ErrorClassification,
      attempt: number,
      delayMs: number,
    ) => {
      const call = err instanceof DependencyCallError ? err : undefined;
      const dependency = call?.dependency ?? 'none';
      deps.metrics.failedAttempts.inc({ dependency, kind: classification.kind });
      const fields = {
        what,
        dependency,
        classification:
          `${classification.kind} ${classification.source} ${classification.code ?? ''}`.trim(),
        fault: classification.fault,
        attempt,
        delayMs: Math.round(delayMs),
        err: describeError(err),
      };
      if (classification.kind !== 'transient') {
        ctx.log.warn(fields, 'failed, retrying a bounded number of times');
        return;
      }
      const fault = classification.fault ?? 'unavailable';
      deps.metrics.transientRetries.inc({ dependency, fault });
      if (call) controls.onWait?.({ dependency: call.dependency, fault });
      if (call && OPERATOR_FAULTS.has(fault)) {
        // The environment is wrong, not the message: say what to fix (fault-advice.ts).
        ctx.log.error(
          fields,
          adviseFault({
            dependency: call.dependency,
            err,
            classification,
            context: deps.faultContext,
            target: call.target,
          }),
        );
      } else if (fault === 'schema-pending') {
        ctx.log.warn(
          fields,
          "schema ID unknown to the registry; waiting before it is the message's",
        );
      } else {
        ctx.log.warn(fields, 'dependency unavailable, retrying');
      }
    },
  };
}
