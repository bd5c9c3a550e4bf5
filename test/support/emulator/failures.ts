// Failures and inputs as a unit test hands them to the emulator (runtime.ts).
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import type { EventWorkflowInput } from '../../../src/events/workflow-input';
import type { ActivityCall } from '../../../src/workflows/saga-runtime';

/** A business failure as a regular activity's failure arrives in workflow code. */
export function businessFailure(activity: string, type: string): ActivityFailure {
  return new ActivityFailure(
    `${activity} failed`,
    activity,
    '1',
    RetryState.NON_RETRYABLE_FAILURE,
    undefined,
    ApplicationFailure.create({ type, message: `${type} in ${activity}`, nonRetryable: true }),
  );
}

/** What an activity throws for a business failure. */
export function businessError(type: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message: type, nonRetryable: true });
}

/** What an activity throws for a provider outage: transient, with the worker's window. */
export function outage(windowMs = 3_600_000, intervalMs = 30_000): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'ProviderUnavailableError',
    message: 'answered 503',
    details: [{ transient: true, windowMs, intervalMs, endpoint: 'POST /x', key: 'k' }],
  });
}

/** What an activity throws for a cause nobody can wait out (a 422). */
export function permanent(message = 'answered 422'): ApplicationFailure {
  return ApplicationFailure.create({ type: 'ProviderRejectedError', message, nonRetryable: true });
}

/** Temporal's view of what an attempt threw: an ApplicationFailure. */
export function asApplicationFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  // A test that hands over the failure as the workflow sees it: its cause is what was thrown.
  if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) return err.cause;
  const e = err instanceof Error ? err : new Error(String(err));
  return ApplicationFailure.create({ type: e.name, message: e.message });
}

/** An event input for an emulated run. */
export function inputOf<T>(data: T, aggregateId = 'e-1'): EventWorkflowInput<T> {
  return {
    data,
    event: {
      eventId: 'evt-1',
      eventType: 'Test',
      identity: 'evt-1',
      aggregateId,
      fingerprint: 'f'.repeat(64),
      source: { topic: 't', partition: 0, offset: '0' },
    },
  };
}

/** An activity call as workflow code on a bare SagaRuntime makes it (class `own`, remote). */
export function activityCall(extra: Partial<ActivityCall> = {}): ActivityCall {
  return {
    activity: 'act',
    input: { key: 'k' },
    retry: 'own',
    local: false,
    summary: 'x',
    ...extra,
  };
}

/** A promise the test settles later, for an activity that is in flight while the test acts. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets the event loop turn `n` times: everything ready to run has run (no wall-clock wait). */
export async function turns(n = 100): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}
