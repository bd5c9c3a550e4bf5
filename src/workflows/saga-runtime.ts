// What the saga runner needs of Temporal's workflow API, as one interface: the runner's logic
// (steps, compensation stack, waits, parking) stays plain code that a unit test can drive with
// a scripted runtime, and `workflowRuntime` is the real one. Workflow code.
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
import { activityOptionsOf, type RetryClass, type StepTimeouts } from './retry-classes';
import type { CancelRequest, SagaStatus } from './saga-status';

/** The run as the claim knows it, and what a reset changes. */
export interface RunInfo {
  workflowId: string;
  runId: string;
  /** Kept by retries, continue-as-new and a reset: the claim's owner is this. */
  firstExecutionRunId: string;
  /** The run ID its start event recorded: another one only after a reset. */
  originalExecutionRunId: string;
  /** When the chain started (kept by a reset). */
  startTime: Date;
  runStartTime: Date;
  /** Temporal suggests continuing as new (the history nears its limits). */
  continueAsNewSuggested: boolean;
  /** Events in the run's history so far. */
  historyLength: number;
}

/** One activity call of a step: which activity, with what, how it retries. */
export interface ActivityCall {
  activity: string;
  input: unknown;
  /** A step's class, or `settle` (the claim's settlement: a local activity retried until it answers). */
  retry: RetryClass | 'settle';
  /** Run as a local activity (a marker, no activity task round trip). */
  local: boolean;
  /** The Web UI's one line for the call: the entity and the key. */
  summary: string;
  /** Business failure types of this step: not retried, they end the step (its own only). */
  nonRetryable?: readonly string[];
  /** This step's own timeouts, over its class's. */
  timeouts?: StepTimeouts;
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
  execute(call: ActivityCall): Promise<unknown>;
  /**
   * Runs a child workflow; `abandon` (asked while it runs) cancels it: Temporal asks the child
   * to cancel and the promise ends with the child's cancellation.
   */
  executeChild(call: ChildCall, cancelWhen: () => boolean): Promise<unknown>;
  signal(
    workflowId: string,
    signal: SignalDefinition<[CancelRequest]>,
    request: CancelRequest,
  ): Promise<void>;
  onSignal<A extends unknown[]>(signal: SignalDefinition<A>, handler: (...args: A) => void): void;
  onUpdate<A extends unknown[]>(
    update: UpdateDefinition<unknown, A>,
    handler: (...args: A) => void,
    validate: (...args: A) => void,
  ): void;
  onQuery(query: QueryDefinition<SagaStatus>, handler: () => SagaStatus): void;
  /**
   * Temporal's own cancellation of the run (Web UI "Request Cancellation", `temporal workflow
   * cancel`, a batch cancel): `handler` runs once when it is requested.
   */
  onCancelRequested(handler: () => void): void;
  /** Continues the run as new with `input` (the same workflow type); never returns. */
  continueAsNew(input: unknown): Promise<never>;
  /**
   * Runs `fn` where Temporal's cancellation cannot interrupt it: the saga notices a
   * cancellation itself (onCancelRequested), finishes or waits out the call in flight, and
   * unwinds; nothing is abandoned half-way with its outcome unknown.
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
      const options: ActivityOptions = activityOptionsOf(call.retry, call);
      return (call.local ? local : remote)[call.activity]!.executeWithOptions(
        { ...options, summary: call.summary },
        [call.input],
      );
    },
    executeChild: (call, cancelWhen) => {
      const scope = new CancellationScope();
      // Conditions cost no command: the child is asked to cancel once the saga is.
      void condition(cancelWhen).then(() => scope.cancel());
      return scope.run(() =>
        executeChild(call.workflowType, {
          workflowId: call.workflowId,
          args: [call.input],
          staticSummary: call.summary,
        }),
      );
    },
    signal: (workflowId, signal, request) =>
      getExternalWorkflowHandle(workflowId).signal(signal, request),
    onSignal: (signal, handler) => setHandler(signal, handler),
    onUpdate: (update, handler, validate) => setHandler(update, handler, { validator: validate }),
    onQuery: (query, handler) => setHandler(query, handler),
    onCancelRequested: (handler) => {
      root.cancelRequested.catch(handler);
    },
    shielded: (fn) => CancellationScope.nonCancellable(fn),
    continueAsNew: (input) => continueAsNew(input),
  };
}
