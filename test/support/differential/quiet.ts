// Whether a run on the real server has nothing left to do but wait for someone, read from its
// history: no workflow task open, no activity, timer or child pending. That is the moment the
// emulator's `idle()` stands for, when the operator answers a parked call.
import { temporal } from '@temporalio/proto';

const T = temporal.api.enums.v1.EventType;
type Event = temporal.api.history.v1.IHistoryEvent;

const CLOSED = new Set([
  T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  T.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);
const TASK = new Set([
  T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
  T.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  T.EVENT_TYPE_WORKFLOW_TASK_FAILED,
  T.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
]);

/** A child's end, by the event's attributes that name the event which started it. */
type ChildEnd =
  | 'childWorkflowExecutionCompletedEventAttributes'
  | 'childWorkflowExecutionFailedEventAttributes'
  | 'childWorkflowExecutionCanceledEventAttributes'
  | 'childWorkflowExecutionTimedOutEventAttributes'
  | 'childWorkflowExecutionTerminatedEventAttributes'
  | 'startChildWorkflowExecutionFailedEventAttributes';
const CHILD_ENDS = new Map<number, ChildEnd>([
  [
    T.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED,
    'childWorkflowExecutionCompletedEventAttributes',
  ],
  [T.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED, 'childWorkflowExecutionFailedEventAttributes'],
  [T.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED, 'childWorkflowExecutionCanceledEventAttributes'],
  [
    T.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT,
    'childWorkflowExecutionTimedOutEventAttributes',
  ],
  [
    T.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED,
    'childWorkflowExecutionTerminatedEventAttributes',
  ],
  [
    T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_FAILED,
    'startChildWorkflowExecutionFailedEventAttributes',
  ],
]);

/** `closed`, `quiet` (nothing pending), or `busy`. */
export function quietness(events: readonly Event[]): 'closed' | 'quiet' | 'busy' {
  const open = new Set<string>();
  let lastTask: number | undefined;
  for (const e of events) {
    const t = e.eventType!;
    if (CLOSED.has(t)) return 'closed';
    if (TASK.has(t)) lastTask = t;
    const id = String(e.eventId);
    switch (t) {
      case T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        open.add(`a${id}`);
        break;
      case T.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
        open.delete(`a${String(e.activityTaskCompletedEventAttributes!.scheduledEventId)}`);
        break;
      case T.EVENT_TYPE_ACTIVITY_TASK_FAILED:
        open.delete(`a${String(e.activityTaskFailedEventAttributes!.scheduledEventId)}`);
        break;
      case T.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
        open.delete(`a${String(e.activityTaskTimedOutEventAttributes!.scheduledEventId)}`);
        break;
      case T.EVENT_TYPE_ACTIVITY_TASK_CANCELED:
        open.delete(`a${String(e.activityTaskCanceledEventAttributes!.scheduledEventId)}`);
        break;
      case T.EVENT_TYPE_TIMER_STARTED:
        open.add(`t${e.timerStartedEventAttributes!.timerId!}`);
        break;
      case T.EVENT_TYPE_TIMER_FIRED:
        open.delete(`t${e.timerFiredEventAttributes!.timerId!}`);
        break;
      case T.EVENT_TYPE_TIMER_CANCELED:
        open.delete(`t${e.timerCanceledEventAttributes!.timerId!}`);
        break;
      case T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
        open.add(`c${id}`);
        break;
      default: {
        const ended = CHILD_ENDS.get(t);
        if (ended) open.delete(`c${String(e[ended]?.initiatedEventId)}`);
      }
    }
  }
  if (lastTask !== T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) return 'busy';
  return open.size === 0 ? 'quiet' : 'busy';
}
