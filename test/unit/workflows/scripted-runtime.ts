import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import type { ActivityCall, SagaRuntime } from '../../../src/workflows/saga-runtime';
import type { EventWorkflowInput } from '../../../src/events/workflow-input';

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

/** An event input for a scripted run. */
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

/**
 * A saga runtime a unit test drives: activities answer through `answer` (which may wait on
 * the test), every call and Step upsert is recorded, conditions are re-checked after each
 * turn of the event loop, and a timer fires at once (time moves on by its length). Signals,
 * updates and Temporal's cancellation are delivered with `signal`, `update` and `cancel`.
 */
export function scriptedRuntime(
  answer: (call: ActivityCall) => Promise<unknown>,
  history: { suggestAfterCalls?: number } = {},
) {
  const calls: ActivityCall[] = [];
  const steps: Array<string | null> = [];
  const handlers = new Map<string, (...args: unknown[]) => void>();
  const validators = new Map<string, (...args: unknown[]) => void>();
  const queries = new Map<string, () => unknown>();
  let onCancel: (() => void) | undefined;
  let now = Date.parse('2026-11-27T12:00:00Z');
  const waitUntil = async (until: () => boolean, timeoutMs?: number) => {
    for (let turns = 0; ; turns++) {
      if (until()) return true;
      // A timer fires once everything else has had its turn (the test's deliveries first).
      if (timeoutMs !== undefined && turns > 50) {
        now += timeoutMs;
        return false;
      }
      await new Promise((r) => setImmediate(r));
    }
  };
  const runtime: SagaRuntime = {
    info: () => ({
      workflowId: 'wf-1',
      runId: 'run-1',
      firstExecutionRunId: 'run-1',
      originalExecutionRunId: 'run-1',
      startTime: new Date(now),
      runStartTime: new Date(now),
      continueAsNewSuggested:
        history.suggestAfterCalls !== undefined && calls.length >= history.suggestAfterCalls,
      historyLength: 10,
    }),
    startedWith: () => true,
    upsertSearchAttributes: (pairs) => {
      for (const p of pairs) if (p.key.name === 'Step') steps.push(p.value as string | null);
    },
    upsertMemo: () => undefined,
    setCurrentDetails: () => undefined,
    condition: (until, timeoutMs) => waitUntil(until, timeoutMs),
    sleep: async (ms) => {
      now += ms;
    },
    now: () => now,
    execute: async (call) => {
      calls.push(call);
      return answer(call);
    },
    executeChild: async (call) =>
      answer({ ...call, activity: `child:${call.workflowType}` } as never),
    signal: async () => undefined,
    onSignal: (signal, handler) => void handlers.set(signal.name, handler as never),
    onUpdate: (update, handler, validate) => {
      handlers.set(update.name, handler as never);
      validators.set(update.name, validate as never);
    },
    onQuery: (query, handler) => void queries.set(query.name, handler as never),
    onCancelRequested: (handler) => {
      onCancel = handler;
    },
    shielded: (fn) => fn(),
    continueAsNew: async (input) => {
      throw new ContinuedAsNew(input);
    },
  };
  return {
    runtime,
    calls,
    /** Step values upserted, in order (null: cleared). */
    steps,
    names: () => calls.map((c) => c.activity),
    signal: (name: string, ...args: unknown[]) => handlers.get(name)!(...args),
    update: (name: string, ...args: unknown[]) => {
      validators.get(name)?.(...args);
      handlers.get(name)!(...args);
    },
    cancel: () => onCancel!(),
    /** What a query handler answers now. */
    query: <T>(name: string) => queries.get(name)!() as T,
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

/** What a scripted run's continue-as-new handed on (the next run's input). */
export class ContinuedAsNew extends Error {
  constructor(readonly input: unknown) {
    super('continued as new');
  }
}
