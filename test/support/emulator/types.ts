// The vocabulary of the Temporal emulator the unit tests run workflow code on (runtime.ts).
import type { ActivityCall, ChildCall } from '../../../src/workflows/saga-runtime';

/** One attempt of an activity, as its answer function sees it. */
export interface AttemptInfo {
  /** 1 for the first attempt of this scheduled activity. */
  attempt: number;
  /** The attempt belongs to a waiting round. */
  round: boolean;
  /** Virtual time (ms). */
  now: number;
}

/** Answers one attempt of an activity: its result, or a throw (as the activity would). */
export type Answer = (call: ActivityCall, info: AttemptInfo) => unknown;

/** A command the workflow code issued, as history would hold it. */
export type Command =
  | {
      type: 'activity';
      seq: number;
      activity: string;
      key?: string;
      local: boolean;
      round: boolean;
    }
  | { type: 'cancel-activity'; seq: number }
  | { type: 'timer'; seq: number; ms: number }
  | { type: 'cancel-timer'; seq: number }
  | { type: 'child'; seq: number; workflowId: string }
  | { type: 'cancel-child'; seq: number }
  | { type: 'upsert-step'; value: string | null }
  | { type: 'memo' };

/** A delivery the workflow code saw. */
export type Delivery =
  | { type: 'activity'; seq: number; ok: boolean; value: unknown }
  | { type: 'timer'; seq: number }
  | { type: 'signal'; name: string; args: unknown[] }
  | { type: 'update'; name: string; args: unknown[] }
  | { type: 'cancel' }
  | { type: 'child'; seq: number; ok: boolean; value: unknown };

/** The log a replay follows: each delivery, its time, and the commands issued before it. */
export interface LogEntry {
  commands: Command[];
  delivery: Delivery;
  at: number;
}

export interface EmulatorOptions {
  /** Idle turns of the event loop before virtual time moves on (a test's chance to act). */
  idleTurns?: number;
  /** Picks among deliveries ready at the same moment (property tests); default: in order. */
  rng?: () => number;
  /** How long one attempt takes (virtual ms). Default 0. */
  attemptMs?: (call: ActivityCall) => number;
  /** Answers a child workflow. Default: completes with `{}`. */
  child?: (call: ChildCall) => unknown;
  /**
   * Replays this log instead of running live (a worker's replay after a restart): deliveries
   * and times come from it, the commands issued are checked against it (a difference throws,
   * as Temporal's nondeterminism check does); it ends where the log ends.
   */
  replay?: readonly LogEntry[];
  /** The run's workflow ID. Default `wf-1`. */
  workflowId?: string;
  /** Events the history holds before the run's first (a run near its budget). Default 3. */
  historyBase?: number;
}
