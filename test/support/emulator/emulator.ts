// The emulator's state: the clock, the run now (its server side: execution.ts), the workflow
// code's incarnation on a worker (instance.ts, its SagaRuntime, its local activities), the
// workflow task in flight, and what a test reads (every activity call, attempt and command).
// Tasks run in workflow-task.ts; restarts, resets and new runs are made in runs.ts.
import { TemporalFailure } from '@temporalio/common';
import { isCancellation } from '@temporalio/workflow';
import type { ActivityCall, SagaRuntime } from '../../../src/workflows/saga-runtime';
import { Clock, START } from './clock';
import { Execution, type RunIds } from './execution';
import { Instance } from './instance';
import { instanceRuntime } from './instance-runtime';
import { EVENT_BASE, EVENT_FRAMING, failureBytes, payloadBytes } from './limits';
import { LocalActivities } from './local-activities';
import type {
  Answer,
  Closed,
  Command,
  Delivery,
  EmulatorOptions,
  LogEntry,
  WorkflowMain,
} from './types';

/** The workflow task in flight. */
export interface Task {
  n: number;
  startedAt: number;
  /** Jobs for its next activation (local activities' results, jobs a heartbeat took in). */
  next: Delivery[];
  heartbeats: number;
  /** Its completion waits for the task's latency (set when due). */
  latency?: 'waiting' | 'done';
  /** Holds only updates: nothing is written unless one is accepted or a command issued. */
  speculative: boolean;
  /** Updates applied in it, with their input's bytes. */
  updates: Array<{ id: number; bytes: number }>;
  /** When its heartbeat is due (while local activities keep it open). */
  heartbeatAt?: number;
}

export type Attempt = {
  call: ActivityCall;
  attempt: number;
  at: number;
  round: boolean;
  local: boolean;
};

export class Emulator {
  readonly clock: Clock;
  readonly calls: ActivityCall[] = [];
  readonly attempts: Attempt[] = [];
  readonly allCommands: Command[] = [];
  readonly steps: Array<string | null> = [];
  /** Every run of the chain, the current last (a reset or continue-as-new adds one). */
  readonly runs: Execution[] = [];
  /** Child workflow IDs running now (IDs are global). */
  readonly runningIds = new Set<string>();
  exec!: Execution;
  inst!: Instance;
  runtime!: SagaRuntime & { continueAsNew(input: unknown): Promise<never> };
  locals!: LocalActivities;
  task?: Task;
  /** The workflow function (start(): it can be started again; a test's own runtime: not). */
  main?: WorkflowMain;
  input: unknown;
  /** The incarnation is spent (its task failed): the next task needs a new one. */
  spent = false;
  /** Jobs the run had when its task last failed for good (a new job may unstick it). */
  jobsAtStuck = 0;
  /** The workflow code threw what fails its task (not a Temporal failure). */
  codeFailure?: string;
  /** A log this instance replays, then stops (the `replay` option). */
  replayFeed?: LogEntry[];
  /** What a test asked of the worker or Temporal (a restart, a reset), run between tasks. */
  readonly controls: Array<() => Promise<void>> = [];
  /** Local activities a replay left unresolved: the next task runs them again. */
  rerun: Array<[number, ActivityCall]> = [];
  readonly updateWaiters = new Map<number, { resolve(): void; reject(err: Error): void }>();
  updateIds = 0;
  private readonly closedWaiters: Array<(c: Closed) => void> = [];
  private runIds = 1;

  constructor(
    readonly answer: Answer,
    readonly options: EmulatorOptions,
    readonly work: () => Promise<boolean>,
  ) {
    this.clock = new Clock(options.idleTurns ?? 50, options.rng);
    this.input = options.input;
    const start = new Date(START);
    const runId = 'run-1';
    const ids: RunIds = {
      workflowId: options.workflowId ?? 'wf-1',
      runId,
      firstExecutionRunId: runId,
      originalExecutionRunId: runId,
      startTime: start,
      runStartTime: start,
    };
    this.exec = this.newExecution(ids, this.startBase());
    this.exec.jobs.push({ type: 'start' });
    this.incarnate();
    if (options.replay) this.replayFeed = [...options.replay];
  }

  /** The history before the first task completes: the start and the first task's two events. */
  startBase(input: unknown = this.input): { events: number; bytes: number } {
    const bytes =
      EVENT_BASE.WorkflowExecutionStarted +
      payloadBytes(input) +
      61 +
      EVENT_BASE.WorkflowTaskStarted +
      3 * EVENT_FRAMING;
    return {
      events: this.options.historyBase ?? 3,
      bytes: this.options.historyBytesBase ?? bytes,
    };
  }

  newRunId(): string {
    return `run-${++this.runIds}`;
  }

  newExecution(ids: RunIds, base: { events: number; bytes: number }): Execution {
    const exec = new Execution(ids, base, {
      clock: this.clock,
      answer: this.answer,
      attemptMs: (call) => this.options.attemptMs?.(call) ?? 0,
      attempted: (call, attempt, local) =>
        void this.attempts.push({ call, attempt, at: this.clock.now, round: !!call.round, local }),
      child: (call) => (this.options.child ?? (() => ({})))(call),
      script: (call) => this.options.childScript?.(call) ?? {},
      runningIds: this.runningIds,
      external: (id) => this.options.external?.(id) ?? true,
      closed: (e) => this.onClosed(e),
      poke: () => this.poke(),
    });
    this.runs.push(exec);
    return exec;
  }

  /** A new incarnation of the workflow code (its first, a restart, a reset's, a new run's). */
  incarnate(): void {
    this.locals?.kill();
    this.inst = new Instance(this.clock.now);
    this.inst.historyLength = this.exec.history.events;
    this.inst.historySize = this.exec.history.bytes;
    const exec = this.exec;
    this.runtime = instanceRuntime(this.inst, {
      ids: () => exec.ids,
      cancelLocal: (seq) => this.locals.cancel(seq),
      steps: this.steps,
    });
    this.locals = new LocalActivities({
      clock: this.clock,
      answer: this.answer,
      attemptMs: (call) => this.options.attemptMs?.(call) ?? 0,
      attempted: (call, attempt, local) =>
        void this.attempts.push({ call, attempt, at: this.clock.now, round: false, local }),
      done: (seq, ok, value) => {
        this.task?.next.push({ type: 'activity', seq, ok, value, local: true });
        this.poke();
      },
    });
    this.spent = false;
    this.codeFailure = undefined;
  }

  poke(): void {
    this.clock.poke(this.work);
  }

  /** Resolves when the chain's last run closes. */
  whenClosed(): Promise<Closed> {
    const last = this.exec.closed;
    if (last && last.continuedAs === undefined) return Promise.resolve(last);
    return new Promise((resolve) => this.closedWaiters.push(resolve));
  }

  private onClosed(exec: Execution): void {
    if (exec !== this.exec) return;
    for (const id of [...this.updateWaiters.keys()]) {
      this.updateWaiters.get(id)!.reject(new Error('workflow execution already completed'));
      this.updateWaiters.delete(id);
    }
    if (exec.closed?.continuedAs !== undefined && this.main) return this.continueAsNew(exec);
    const waiters = this.closedWaiters.splice(0);
    waiters.forEach((w) => w(exec.closed!));
  }

  /** The run continued as new: a new run ID, a fresh history, the same chain. */
  private continueAsNew(prev: Execution): void {
    this.task = undefined;
    this.input = prev.closed!.continuedAs;
    const runId = this.newRunId();
    const now = new Date(this.clock.now);
    this.exec = this.newExecution(
      { ...prev.ids, runId, originalExecutionRunId: runId, runStartTime: now },
      this.startBase(),
    );
    this.exec.jobs.push({ type: 'start' });
    this.incarnate();
    this.poke();
  }

  /** Starts the workflow function (the `start` job), once per incarnation. */
  startMain(): void {
    const main = this.main;
    if (!main) return;
    const inst = this.inst;
    main(this.runtime, this.input).then(
      (result) => {
        if (!inst.closing)
          inst.issue({
            type: 'complete',
            result,
            blob: payloadBytes(result),
            bytes: payloadBytes(result),
          });
        inst.closing = true;
      },
      (err: unknown) => {
        if (inst.closing || inst !== this.inst) return;
        const closing = terminalOf(err, inst.cancelRequested);
        if (closing) inst.issue(closing);
        else this.codeFailure = `the workflow code threw ${String(err)}`;
        inst.closing = true;
      },
    );
  }
}

/**
 * What the SDK does with the workflow function's failure: a cancellation of a cancelled run
 * closes it Canceled, a Temporal failure closes it Failed, anything else fails the task (and
 * every retry of it: the run is stuck until other code runs it).
 */
function terminalOf(err: unknown, cancelRequested: boolean): Command | undefined {
  if (cancelRequested && isCancellation(err)) return { type: 'cancel-run', error: err };
  if (err instanceof TemporalFailure)
    return { type: 'fail', error: err, bytes: failureBytes(err), blob: failureBytes(err) };
  return undefined;
}
