// The types the engine's run is built on (entity-run.ts): what a definition gives it, a step
// as the body calls it, an undo. Pure: types only.
import type { RetryClass, StepTimeouts } from './retry-classes';
import type { ActivityCall } from './saga-runtime';
import type { SagaResult, SagaStatus } from './saga-status';
import type { ActivityMap, InStepClaim, SagaDefinition, StepContext } from './saga-types';

/** An undo: a compensation's call, as data. */
export interface StackEntry extends ActivityCall {
  /** The step it undoes. */
  step: string;
  /** The compensation's own name. */
  name: string;
  /** The item of the call it undoes, for a repeated step (`steps.reserve.each(item, …)`). */
  item?: string;
  /** Its idempotency key: `<kind>:<entityId>:<name>` (`:<item>` for a repeated step's). */
  key: string;
}

/** What the engine needs of a workflow's definition, whichever form it was written in. */
export interface RunSpec<TData, TExtra extends object = object> {
  domain: string;
  entity: SagaDefinition<TData, ActivityMap, TExtra>['entity'];
  /** Every step's and compensation's name, in the order `status.keys` lists them. */
  keyNames: readonly string[];
  /** The outcomes the run may end with besides the engine's (business failures, `fail`). */
  outcomes: readonly string[];
  claim?: InStepClaim<TData, ActivityMap>;
  cli?: string;
  counterpart?: Readonly<Record<string, string>>;
  channels?: SagaDefinition<TData, ActivityMap, TExtra>['channels'];
  status?: (data: TData) => TExtra;
  result?: (status: SagaStatus & TExtra) => object;
  /**
   * Every compensation a run of this workflow may push, last step first, for a run that
   * compensates on behalf of a closed owner; `ctxOf` gives each its context by name.
   */
  compensations(ctxOf: (name: string) => StepContext<TData>): StackEntry[];
}

/** One step as the body calls it: its activity, how it retries, how it is undone. */
export interface StepSpec {
  name: string;
  /** What the status says while it runs. Default: the name. */
  running?: string;
  activity: string;
  retry: RetryClass;
  /** Run as a local activity: asked at each attempt (a replay switch may answer). */
  local?: () => boolean;
  /** The Web UI's line for the call. Default: `<step> <kind> <id> · <key>`. */
  summary?: string;
  failures?: Readonly<Record<string, string>>;
  timeouts?: StepTimeouts;
  /** The provider it calls (its activity runs on that provider's task queue). Default: none. */
  provider?: string;
  /** Its compensation's call, set before the step runs (result unknown) and once it is known. */
  compensation?: (result?: unknown) => StackEntry;
}

export type RunResult = SagaResult & Record<string, unknown>;
