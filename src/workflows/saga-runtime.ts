// What the saga runner needs of Temporal's workflow API, as one interface: the runner's logic
// (steps, compensation stack, waits, parking) stays plain code that a unit test can drive with
// a scripted runtime, and `workflowRuntime` is the real one. Workflow code.
import {
  condition,
  getExternalWorkflowHandle,
  patched,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
  type QueryDefinition,
  type SignalDefinition,
} from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { SEARCH_ATTRIBUTE } from '../temporal/search-attributes';
import type { RetryClass } from './retry-classes';
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
}

export interface SagaRuntime {
  info(): RunInfo;
  /** Whether the starter set this search attribute. */
  startedWith(key: (typeof SEARCH_ATTRIBUTE)[keyof typeof SEARCH_ATTRIBUTE]): boolean;
  patched(patchId: string): boolean;
  upsertSearchAttributes(pairs: SearchAttributeUpdatePair[]): void;
  upsertMemo(memo: Record<string, unknown>): void;
  setCurrentDetails(markdown: string): void;
  condition(until: () => boolean, timeoutMs?: number): Promise<boolean>;
  sleep(ms: number): Promise<void>;
  /** Workflow time in ms (deterministic on replay). */
  now(): number;
  execute(call: ActivityCall): Promise<unknown>;
  signal(
    workflowId: string,
    signal: SignalDefinition<[CancelRequest]>,
    request: CancelRequest,
  ): Promise<void>;
  onSignal<A extends unknown[]>(signal: SignalDefinition<A>, handler: (...args: A) => void): void;
  onQuery(query: QueryDefinition<SagaStatus>, handler: () => SagaStatus): void;
}

/** Activity proxies of one saga, by retry class and locality (declared once per module). */
export type SagaProxies = Record<
  RetryClass | 'settle',
  Record<'remote' | 'local', Record<string, Proxied>>
>;

interface Proxied {
  executeWithOptions(options: { summary: string }, args: unknown[]): Promise<unknown>;
}

/** The runtime of a workflow run: Temporal's workflow API. */
export function workflowRuntime(proxies: SagaProxies): SagaRuntime {
  return {
    info: () => workflowInfo(),
    startedWith: (key) => workflowInfo().typedSearchAttributes.get(key) !== undefined,
    patched,
    upsertSearchAttributes,
    upsertMemo,
    setCurrentDetails,
    condition: (until, timeoutMs) =>
      timeoutMs === undefined ? condition(until).then(() => true) : condition(until, timeoutMs),
    sleep: (ms) => sleep(ms),
    now: () => Date.now(),
    execute: (call) =>
      proxies[call.retry][call.local ? 'local' : 'remote'][call.activity]!.executeWithOptions(
        { summary: call.summary },
        [call.input],
      ),
    signal: (workflowId, signal, request) =>
      getExternalWorkflowHandle(workflowId).signal(signal, request),
    onSignal: (signal, handler) => setHandler(signal, handler),
    onQuery: (query, handler) => setHandler(query, handler),
  };
}
