import { strict as assert } from 'node:assert';
import { temporal } from '@temporalio/proto';
import { countEvents, summarizeShapes } from '../../../../harness/bench/history-shape';

const { EventType } = temporal.api.enums.v1;

describe("bench: a finished run's history shape", () => {
  it('counts event types by their Temporal names', () => {
    const counts = countEvents({
      events: [
        { eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED },
        { eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED },
        { eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED },
        { eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED },
      ],
    });
    assert.deepEqual(counts, {
      WorkflowExecutionStarted: 1,
      WorkflowTaskScheduled: 1,
      ActivityTaskScheduled: 2,
    });
  });

  it('reports the most common length, its workflow tasks, and the spread', () => {
    const happy = { WorkflowExecutionStarted: 1, WorkflowTaskScheduled: 3, MarkerRecorded: 2 };
    const retried = { ...happy, ActivityTaskFailed: 1, WorkflowTaskScheduled: 4 };
    const duplicate = { WorkflowExecutionStarted: 1, WorkflowTaskScheduled: 1 };
    const shape = summarizeShapes([retried, duplicate, happy, happy]);
    assert.equal(shape.runs, 4);
    assert.deepEqual(shape.events, { typical: 6, min: 2, max: 8 });
    assert.equal(shape.workflowTasks, 3);
    assert.deepEqual(shape.byType, happy);
  });

  it('refuses an empty sample rather than reporting zero events', () => {
    assert.throws(() => summarizeShapes([]), /no completed run/);
  });
});
