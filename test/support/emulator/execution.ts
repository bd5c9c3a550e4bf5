// One run as the server holds it: its history (events and bytes), the jobs that arrived since
// its last completed workflow task, what it has pending (activities, timers, children,
// external signals), and how it closed. Every arrival is a transaction: a history already
// past its limits is terminated there, before anything else is written. A task's completion
// is one transaction too: its commands become events and pending things here.
import type { RunInfo } from '../../../src/workflows/saga-runtime';
import type { Clock } from './clock';
import { History } from './history';
import { LIMITS, type EventType } from './limits';
import { ServerActivities, type ActivityHost, type Events } from './server-activities';
import { ServerChildren, type ChildHost } from './server-children';
import type { Closed, Command, Delivery, LogEntry } from './types';

export type RunIds = Omit<RunInfo, 'historyLength' | 'historySize' | 'continueAsNewSuggested'>;

/** What a run needs of the emulator around it. */
export type ExecutionHost = Omit<ActivityHost, 'arrive' | 'write' | 'running'> &
  Omit<ChildHost, 'arrive' | 'write'> & {
    clock: Clock;
    /** Whether a workflow a signal is sent to runs. */
    external(workflowId: string): boolean;
    /** The run closed (for the one that follows a continue-as-new: its input). */
    closed(exec: Execution): void;
    /** Something arrived: the loop looks again. */
    poke(): void;
  };

export class Execution {
  readonly history: History;
  /** Jobs arrived since the last completed task (their events written). */
  jobs: Delivery[] = [];
  closed?: Closed & { continuedAs?: unknown };
  /** Why its workflow task fails for ever (until a worker on other code retries it). */
  stuck?: string;
  /** Its task failed: later attempts write nothing until one completes. */
  failedOnce = false;
  /** Why each of its workflow tasks failed (a retry that went through included). */
  readonly taskFailures: string[] = [];
  /** Every activation, of completed tasks and of the one in flight. */
  readonly log: LogEntry[] = [];
  /** The history at the end of each completed task (what a reset keeps). */
  readonly taskEnds: Array<{ wft: number; events: number; bytes: number; at: number }> = [];
  /** Tasks started so far. */
  wft = 0;
  /** A task is in flight: what arrives meanwhile is buffered, and counted. */
  inFlight = false;
  buffered = { events: 0, bytes: 0 };
  /** A task is owed without new jobs (the last one timed out or failed: the server retries it). */
  taskOwed = false;
  /** Too much arrived during the task in flight: the server fails it (FORCE_CLOSE_COMMAND). */
  forceClose = false;
  readonly activities: ServerActivities;
  readonly children: ServerChildren;
  readonly timers = new Map<number, { live: boolean }>();
  /** External signals sent and not yet answered. */
  signalsOut = 0;

  constructor(
    readonly ids: RunIds,
    base: { events: number; bytes: number },
    private readonly host: ExecutionHost,
  ) {
    this.history = new History(base);
    const write = (events: Events) => this.write(events);
    const arrive = (job: Delivery, events: Events) => this.arrive(job, events);
    this.activities = new ServerActivities({ ...host, arrive, write, running: () => !this.closed });
    this.children = new ServerChildren({ ...host, arrive, write });
  }

  /** Writes events into the transaction running now. */
  write(events: Events): void {
    for (const [type, extra] of events) this.history.add(type, extra ?? 0);
  }

  /**
   * A transaction: the server first terminates a run whose history is past its limits
   * (nothing of this one is written then), else writes `events`. False once closed.
   */
  transact(events: Events): boolean {
    if (this.closed) return false;
    const breach = this.history.breach();
    if (breach) {
      this.terminate(breach);
      return false;
    }
    this.write(events);
    return true;
  }

  /** A job arrives with its events; buffered (and counted) while a task is in flight. */
  arrive(job: Delivery, events: Events): void {
    const before = { events: this.history.events, bytes: this.history.bytes };
    if (!this.transact(events)) return;
    this.jobs.push(job);
    if (this.inFlight) {
      this.buffered.events += this.history.events - before.events;
      this.buffered.bytes += this.history.bytes - before.bytes;
      if (
        this.buffered.events > LIMITS.bufferedEvents ||
        this.buffered.bytes > LIMITS.bufferedBytes
      )
        this.forceClose = true;
    }
    this.host.poke();
  }

  terminate(reason: string): void {
    if (this.closed) return;
    this.write([['WorkflowExecutionTerminated', reason.length]]);
    this.close({ status: 'terminated', reason });
  }

  close(closed: Closed & { continuedAs?: unknown }): void {
    this.closed = closed;
    this.activities.abandonAll();
    this.children.abandonAll();
    for (const t of this.timers.values()) t.live = false;
    this.host.closed(this);
  }

  startTimer(seq: number, due: number): void {
    const t = { live: true };
    this.timers.set(seq, t);
    this.host.clock.at(due, () => {
      if (!t.live) return;
      t.live = false;
      this.arrive({ type: 'timer', seq }, [['TimerFired']]);
    });
  }

  /** An external signal: delivered, or failed when its workflow does not run. */
  sendSignal(seq: number, workflowId: string): void {
    this.signalsOut++;
    const ok = this.host.external(workflowId);
    this.host.clock.at(this.host.clock.now, () => {
      this.signalsOut--;
      this.arrive({ type: 'signal-external', seq, ok }, [
        [ok ? 'ExternalWorkflowExecutionSignaled' : 'SignalExternalWorkflowExecutionFailed'],
      ]);
    });
  }

  /** Closed by a reset (its successor carries on): nothing of it reports any more. */
  supersede(): void {
    if (!this.closed) this.closed = { status: 'terminated', reason: 'reset' };
    this.activities.abandonAll();
    this.children.abandonAll();
    for (const t of this.timers.values()) t.live = false;
  }

  /** The server side of a completed task's commands, in order (one transaction). */
  apply(commands: readonly Command[]): void {
    const { clock } = this.host;
    for (const c of commands) {
      if (c.dropped || this.closed) continue;
      const bytes = c.bytes ?? 0;
      const ev = (type: EventType) => this.write([[type, bytes]]);
      switch (c.type) {
        case 'activity':
          if (c.local) break;
          ev('ActivityTaskScheduled');
          this.activities.schedule(c.seq, c.call);
          break;
        case 'marker':
          ev('MarkerRecorded');
          break;
        case 'cancel-activity':
          this.activities.requestCancel(c.seq);
          break;
        case 'timer':
          ev('TimerStarted');
          this.startTimer(c.seq, clock.now + c.ms);
          break;
        case 'cancel-timer': {
          const t = this.timers.get(c.seq);
          if (!t?.live) break;
          t.live = false;
          ev('TimerCanceled');
          break;
        }
        case 'child':
          ev('StartChildWorkflowExecutionInitiated');
          this.children.start(c.seq, c.call);
          break;
        case 'cancel-child':
          this.children.requestCancel(c.seq);
          break;
        case 'signal-external':
          ev('SignalExternalWorkflowExecutionInitiated');
          this.sendSignal(c.seq, c.workflowId);
          break;
        case 'upsert':
          ev('UpsertWorkflowSearchAttributes');
          break;
        case 'memo':
          ev('WorkflowPropertiesModified');
          break;
        case 'complete':
          ev('WorkflowExecutionCompleted');
          this.close({ status: 'completed', result: c.result });
          break;
        case 'fail':
          ev('WorkflowExecutionFailed');
          this.close({ status: 'failed', error: c.error });
          break;
        case 'cancel-run':
          ev('WorkflowExecutionCanceled');
          this.close({ status: 'canceled', error: c.error });
          break;
        case 'continue-as-new':
          ev('WorkflowExecutionContinuedAsNew');
          this.close({ status: 'completed', result: undefined, continuedAs: c.input });
          break;
      }
    }
  }
}
