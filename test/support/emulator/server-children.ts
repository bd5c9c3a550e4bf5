// Child workflows as the server runs them for the parent: initiated (a command event), started
// (an event of its own, a task of its own), then completed, failed, canceled, terminated or
// timed out (the test's `child` answer says which: a value, or a thrown ApplicationFailure,
// TerminatedFailure, TimeoutFailure or CancelledFailure), with their payload bytes. A cancel
// request (RequestCancelExternal) is recorded as requested, then the child heeds it (it
// closes Canceled) unless its script ignores cancels. A child ID that is still running fails
// to start (WorkflowExecutionAlreadyStarted), as a reset that starts the same child again
// meets. The parent closing terminates its running children (ParentClosePolicy TERMINATE).
import {
  ApplicationFailure,
  CancelledFailure,
  ChildWorkflowFailure,
  RetryState,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowExecutionAlreadyStartedError,
} from '@temporalio/common';
import type { ChildCall } from '../../../src/workflows/saga-runtime';
import type { Clock } from './clock';
import { failureBytes, payloadBytes, type EventType } from './limits';
import type { Events } from './server-activities';
import type { ChildScript, Delivery } from './types';

export interface ChildHost {
  clock: Clock;
  child(call: ChildCall): unknown;
  script(call: ChildCall): ChildScript;
  arrive(job: Delivery, events: Events): void;
  write(events: Events): void;
  /** Child workflow IDs running now, across the emulator (their IDs are global). */
  runningIds: Set<string>;
}

interface Running {
  seq: number;
  call: ChildCall;
  closed: boolean;
  script: ChildScript;
}

export class ServerChildren {
  private readonly open = new Map<number, Running>();
  /** RequestCancelExternal commands not yet answered (the pending-cancel-requests limit). */
  cancelRequests = 0;

  constructor(private readonly host: ChildHost) {}

  get pending(): number {
    return this.open.size;
  }

  start(seq: number, call: ChildCall): void {
    const { host } = this;
    if (host.runningIds.has(call.workflowId)) {
      const err = new WorkflowExecutionAlreadyStartedError(
        'Workflow execution already started',
        call.workflowId,
        call.workflowType,
      );
      host.clock.at(host.clock.now, () =>
        host.arrive({ type: 'child', seq, ok: false, value: err }, [
          ['StartChildWorkflowExecutionFailed'],
        ]),
      );
      return;
    }
    const c: Running = { seq, call, closed: false, script: host.script(call) };
    this.open.set(seq, c);
    host.runningIds.add(call.workflowId);
    host.clock.at(host.clock.now, () => {
      if (c.closed) return;
      host.arrive({ type: 'child-started', seq }, [['ChildWorkflowExecutionStarted']]);
      host.clock.external++;
      void Promise.resolve()
        .then(() => host.child(call))
        .then(
          (value) => ({ ok: true as const, value }),
          (err: unknown) => ({ ok: false as const, err }),
        )
        .then((out) => {
          host.clock.external--;
          host.clock.at(host.clock.now + (c.script.ms ?? 0), () =>
            out.ok
              ? this.close(c, 'ChildWorkflowExecutionCompleted', out.value)
              : this.fail(c, out.err),
          );
        });
    });
  }

  requestCancel(seq: number): void {
    const { host } = this;
    host.write([['RequestCancelExternalWorkflowExecutionInitiated']]);
    this.cancelRequests++;
    const c = this.open.get(seq);
    host.clock.at(host.clock.now, () => {
      this.cancelRequests--;
      host.arrive({ type: 'cancel-child-requested', seq }, [
        ['ExternalWorkflowExecutionCancelRequested'],
      ]);
      if (c && !c.closed && !c.script.ignoresCancel)
        this.fail(c, new CancelledFailure('cancelled'));
    });
  }

  /** The parent closed: its children are terminated (nothing more reaches it). */
  abandonAll(): void {
    for (const c of this.open.values()) {
      c.closed = true;
      this.host.runningIds.delete(c.call.workflowId);
    }
    this.open.clear();
  }

  private fail(c: Running, err: unknown): void {
    const [type, cause, state]: [EventType, Error, RetryState] =
      err instanceof CancelledFailure
        ? ['ChildWorkflowExecutionCanceled', err, RetryState.NON_RETRYABLE_FAILURE]
        : err instanceof TerminatedFailure
          ? ['ChildWorkflowExecutionTerminated', err, RetryState.NON_RETRYABLE_FAILURE]
          : err instanceof TimeoutFailure
            ? ['ChildWorkflowExecutionTimedOut', err, RetryState.TIMEOUT]
            : [
                'ChildWorkflowExecutionFailed',
                err instanceof ApplicationFailure
                  ? err
                  : ApplicationFailure.create({ message: String(err) }),
                RetryState.NON_RETRYABLE_FAILURE,
              ];
    const failure = new ChildWorkflowFailure(
      'default',
      { workflowId: c.call.workflowId },
      c.call.workflowType,
      state,
      cause,
    );
    this.close(c, type, failure);
  }

  private close(c: Running, type: EventType, value: unknown): void {
    if (c.closed) return;
    c.closed = true;
    this.open.delete(c.seq);
    this.host.runningIds.delete(c.call.workflowId);
    const ok = type === 'ChildWorkflowExecutionCompleted';
    const bytes = ok ? payloadBytes(value) : failureBytes((value as Error).cause);
    this.host.arrive({ type: 'child', seq: c.seq, ok, value }, [[type, bytes]]);
  }
}
