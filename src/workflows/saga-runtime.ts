// What a run needs of Temporal's workflow API, as one interface: the run's logic (its phases,
// calls, compensation, waits, parking) stays plain code that a unit test can drive with a
// scripted runtime, and `workflowRuntime` is the real one. Workflow code.
import {
  CancellationScope,
  condition,
  continueAsNew,
  executeChild,
  getExternalWorkflowHandle,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
  type QueryDefinition,
  type SignalDefinition,
} from '@temporalio/workflow';
import type { SearchAttributeUpdatePair, UpdateDefinition } from '@temporalio/common';
import type { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import {
  activityOptionsOf,
  type RetryClass,
  type StepTimeouts,
  type WaitingRound,
} from './retry-classes';
import type { CancelRequest, SagaStatus } from './saga-status';
import { providerTaskQueue } from '../util/provider-queue';

/** The run as the claim knows it, and what a reset changes. */
export interface RunInfo {
  workflowId: string;
  runId: string;
  /** Kept by retries and a reset: the claim's owner is this. */
  firstExecutionRunId: string;
  /** The run ID its start event recorded: another one only after a reset. */
  originalExecutionRunId: string;
  /** When the chain started (kept by a reset). */
  startTime: Date;
  runStartTime: Date;
  /** Events in the run's history so far (the run's budget reads it: run-budget.ts). */
  historyLength: number;
  /** Bytes of the run's history so far, as Temporal counts them (the budget reads it too). */
  historySize: number;
  /** Temporal suggests continuing as new (its own warning lines were passed). */
  continueAsNewSuggested?: boolean;
}

/** One activity call of a step: which activity, with what, how it retries. */
export interface ActivityCall {
  activity: string;
  input: unknown;
  /** A step's class, or `settle` (the claim's settlement: a local activity retried until it answers). */
  retry: RetryClass | 'settle';
  /** Run as a local activity (a marker, no activity task round trip); a waiting round never is. */
  local: boolean;
  /** The Web UI's one line for the call: the entity and the key. */
  summary: string;
  /** Business failure types of this step: not retried, they end the step (its own only). */
  nonRetryable?: readonly string[];
  /** This step's own timeouts, over its class's. */
  timeouts?: StepTimeouts;
  /** Set for a waiting round: one activity retried by Temporal for the rest of the window. */
  round?: WaitingRound;
  /**
   * The provider it calls: a regular activity then runs on that provider's task queue, where
   * Temporal holds the provider's rate limit across every worker (provider-queue.ts).
   */
  provider?: string;
}

/**
 * A call in flight: its result, and `cancel`, which stops it: no attempt starts after it, an
 * attempt in flight finishes first (the result then says how it ended: completed, failed, or
 * an ActivityFailure caused by a CancelledFailure). Cancelling a settled call does nothing.
 */
export interface InFlight<T = unknown> {
  result: Promise<T>;
  cancel(): void;
}

/** A child workflow of a step: its type, ID and input. */
export interface ChildCall {
  workflowType: string;
  workflowId: string;
  input: unknown;
  summary: string;
}

export interface SagaRuntime {
  info(): RunInfo;
  /** Whether the starter set this search attribute. */
  startedWith(key: (typeof SEARCH_ATTRIBUTE)[keyof typeof SEARCH_ATTRIBUTE]): boolean;
  upsertSearchAttributes(pairs: SearchAttributeUpdatePair[]): void;
  upsertMemo(memo: Record<string, unknown>): void;
  setCurrentDetails(markdown: string): void;
  condition(until: () => boolean, timeoutMs?: number, summary?: string): Promise<boolean>;
  sleep(ms: number): Promise<void>;
  /** Workflow time in ms (deterministic on replay). */
  now(): number;
  /** Starts one activity call (the class's budget, or a waiting round's). */
  execute(call: ActivityCall): InFlight;
  /**
   * Starts a child workflow; `cancel` asks Temporal to cancel it and the result then ends with
   * the child's cancellation.
   */
  executeChild(call: ChildCall): InFlight;
  signal(
    workflowId: string,
    signal: SignalDefinition<[CancelRequest]>,
    request: CancelRequest,
  ): Promise<void>;
  onSignal<A extends unknown[]>(signal: SignalDefinition<A>, handler: (...args: A) => void): void;
  onUpdate<R, A extends unknown[]>(
    update: UpdateDefinition<R, A>,
    handler: (...args: A) => R,
    validate: (...args: A) => void,
  ): void;
  onQuery(query: QueryDefinition<SagaStatus>, handler: () => SagaStatus): void;
  /**
   * Temporal's own cancellation of the run (Web UI "Request Cancellation", `temporal workflow
   * cancel`, a batch cancel): `handler` runs once when it is requested.
   */
  onCancelRequested(handler: () => void): void;
  /**
   * Closes this run and starts the next of its chain with `input` (same workflow ID and
   * type, a fresh history): a checkpoint of a long-lived loop. Never returns.
   */
  continueAsNew(input: unknown): Promise<never>;
  /**
   * Runs `fn` where Temporal's cancellation cannot interrupt it: the run notices a
   * cancellation itself (onCancelRequested), stops its calls in flight (each finishes its
   * attempt) and unwinds; nothing is abandoned half-way with its outcome unknown.
   */
  shielded<T>(fn: () => Promise<T>): Promise<T>;
}

interface Proxied {
  executeWithOptions(options: object, args: unknown[]): Promise<unknown>;
}

/** The runtime of a workflow run: Temporal's workflow API. */
export function workflowRuntime(): SagaRuntime {
  // The run's root scope, where Temporal's cancellation lands (the saga itself runs shielded).
  const root = CancellationScope.current();
  // One proxy each: every call passes its whole options (deepMerge replaces arrays).
  const remote = proxyActivities({ startToCloseTimeout: '10 seconds' }) as unknown as Record<
    string,
    Proxied
  >;
  const local = proxyLocalActivities({
    startToCloseTimeout: '10 seconds',
  }) as unknown as Record<string, Proxied>;
  return {
    info: () => workflowInfo(),
    startedWith: (key) => workflowInfo().typedSearchAttributes.get(key) !== undefined,
    upsertSearchAttributes,
    upsertMemo,
    setCurrentDetails,
    condition: (until, timeoutMs, summary) =>
      timeoutMs === undefined
        ? condition(until).then(() => true)
        : summary === undefined
          ? condition(until, timeoutMs)
          : condition(until, timeoutMs, { summary }),
    sleep: (ms) => sleep(ms),
    now: () => Date.now(),
    execute: (call) => {
      // A waiting round is a regular activity even for a local step: Temporal's retries of a
      // regular activity write no history events, a local activity's long backoff does.
      const asLocal = call.local && call.round === undefined;
      const options: ActivityOptions = {
        ...activityOptionsOf(call.retry, call),
        ...(call.provider !== undefined && !asLocal
          ? { taskQueue: providerTaskQueue(workflowInfo().taskQueue, call.provider) }
          : {}),
      };
      return inScope(() =>
        (asLocal ? local : remote)[call.activity]!.executeWithOptions(
          { ...options, summary: call.summary },
          [call.input],
        ),
      );
    },
    executeChild: (call) =>
      inScope(() =>
        executeChild(call.workflowType, {
          workflowId: call.workflowId,
          args: [call.input],
          staticSummary: call.summary,
        }),
      ),
    signal: (workflowId, signal, request) =>
      getExternalWorkflowHandle(workflowId).signal(signal, request),
    onSignal: (signal, handler) => setHandler(signal, handler),
    onUpdate: (update, handler, validate) => setHandler(update, handler, { validator: validate }),
    onQuery: (query, handler) => setHandler(query, handler),
    onCancelRequested: (handler) => {
      root.cancelRequested.catch(handler);
    },
    continueAsNew: (input) => continueAsNew(input),
    shielded: (fn) => CancellationScope.nonCancellable(fn),
  };
}

/**
 * Runs `start` in a scope of its own, cancellable by the run (inside the shielded one, so only
 * the run's own decision cancels it, never Temporal's request on the whole run).
 */
function inScope<T>(start: () => Promise<T>): InFlight<T> {
  const scope = new CancellationScope();
  return { result: scope.run(start), cancel: () => scope.cancel() };
}
