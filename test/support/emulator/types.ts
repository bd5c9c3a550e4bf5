// The vocabulary of the Temporal emulator the unit tests run workflow code on (runtime.ts).
import type { ActivityCall, ChildCall, SagaRuntime } from '../../../src/workflows/saga-runtime';

/** One attempt of an activity, as its answer function sees it. */
export interface AttemptInfo {
  /** 1 for the first attempt of this scheduled activity (a local one: of this execution). */
  attempt: number;
  /** The attempt belongs to a waiting round. */
  round: boolean;
  /** Virtual time (ms). */
  now: number;
  /** Run by the worker as a local activity. */
  local: boolean;
}

/** Answers one attempt of an activity: its result, or a throw (as the activity would). */
export type Answer = (call: ActivityCall, info: AttemptInfo) => unknown;

/** A command the workflow code issued, as history would hold it. `bytes`: its payloads. */
export type Command = (
  | {
      type: 'activity';
      seq: number;
      activity: string;
      key?: string;
      local: boolean;
      round: boolean;
      call: ActivityCall;
    }
  | { type: 'cancel-activity'; seq: number }
  | { type: 'timer'; seq: number; ms: number }
  | { type: 'cancel-timer'; seq: number }
  | { type: 'child'; seq: number; workflowId: string; workflowType: string; call: ChildCall }
  | { type: 'cancel-child'; seq: number }
  | { type: 'signal-external'; seq: number; workflowId: string; name: string }
  /** A search attribute upsert; `step` when it sets the Step attribute. */
  | { type: 'upsert'; step?: string | null }
  | { type: 'memo' }
  /** A local activity's marker (written when the task that ran it completes). */
  | { type: 'marker'; seq: number; activity: string }
  | { type: 'complete'; result: unknown }
  | { type: 'fail'; error: unknown }
  | { type: 'cancel-run'; error: unknown }
  | { type: 'continue-as-new'; input: unknown }
) & {
  /** Its attributes' bytes (payloads, summary) as its event will hold them. */
  bytes?: number;
  /** Its largest single payload (the blob size limit's measure). */
  blob?: number;
  /** Scheduled and cancelled before its task completed: the SDK sent neither command. */
  dropped?: boolean;
};

/** A job of an activation: what the workflow code saw. */
export type Delivery =
  | { type: 'start' }
  | { type: 'activity'; seq: number; ok: boolean; value: unknown; local?: boolean }
  | { type: 'timer'; seq: number }
  | { type: 'signal'; name: string; args: unknown[] }
  | {
      type: 'update';
      name: string;
      args: unknown[];
      id: number;
      /** Durably admitted (a reset carried it over): its task is an ordinary one. */
      admitted?: boolean;
    }
  | { type: 'cancel' }
  | { type: 'child-started'; seq: number }
  | { type: 'child'; seq: number; ok: boolean; value: unknown }
  | { type: 'signal-external'; seq: number; ok: boolean }
  | { type: 'cancel-child-requested'; seq: number };

/** One activation: its jobs in the order applied, the commands it issued, when. */
export interface LogEntry {
  /** The workflow task it belongs to (several activations share one while local activities run). */
  wft: number;
  at: number;
  jobs: Delivery[];
  commands: Command[];
  /** What workflowInfo() said during it. */
  historyLength: number;
  historySize: number;
}

/** How a run ended, as `describe` would say (`stuck`: its workflow task fails for ever). */
export type Closed =
  | { status: 'completed'; result: unknown }
  | { status: 'failed'; error: unknown }
  | { status: 'canceled'; error: unknown }
  | { status: 'terminated'; reason: string }
  | { status: 'stuck'; reason: string };

/** A workflow function the emulator can start again (a worker restart, a reset, a new run). */
export type WorkflowMain = (runtime: SagaRuntime, input: unknown) => Promise<unknown>;

/** How a scripted child ends (the `child` option's answer may throw these failures). */
export interface ChildScript {
  /** Virtual ms it runs. Default 0. */
  ms?: number;
  /** Ignores a cancel request (runs to its end). Default: cancels at once. */
  ignoresCancel?: boolean;
}

export interface EmulatorOptions {
  /** Idle turns of the event loop before virtual time moves on (a test's chance to act). */
  idleTurns?: number;
  /** Orders events that arrive at the same moment, and picks task latencies (property tests). */
  rng?: () => number;
  /** How long one attempt takes (virtual ms). Default 0. */
  attemptMs?: (call: ActivityCall) => number;
  /**
   * Answers a child workflow: its result, or a throw (an ApplicationFailure: failed; a
   * TerminatedFailure, TimeoutFailure or CancelledFailure: so ended). Default: `{}`.
   */
  child?: (call: ChildCall) => unknown;
  /** How long a child runs and whether it heeds a cancel. */
  childScript?: (call: ChildCall) => ChildScript;
  /** Whether a workflow a signal is sent to exists (running). Default: yes. */
  external?: (workflowId: string) => boolean;
  /** Virtual ms a workflow task takes, from the commands it completes with. Default 0. */
  taskLatency?: (commands: number, rng: () => number) => number;
  /**
   * Replays this log instead of running live (a worker's replay after a restart): jobs and
   * times come from it, the commands issued are checked against it as sdk-core does; it ends
   * where the log ends.
   */
  replay?: readonly LogEntry[];
  /** The run's workflow ID. Default `wf-1`. */
  workflowId?: string;
  /** Events the history holds before the run's first task completes. Default 3. */
  historyBase?: number;
  /** Bytes of those events. Default: what the start and the first task's two events weigh. */
  historyBytesBase?: number;
  /** The run's input, as the start event records it (its bytes). */
  input?: unknown;
  /** Called after every completed workflow task (an approver or operator watching the run). */
  observe?: () => void;
}
