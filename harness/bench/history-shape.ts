/**
 * What a finished run's history holds, for `npm run bench`: events and workflow tasks per
 * run, read from a sample of completed runs of one task queue and workflow type. A run's
 * history is what Temporal writes, stores and replays for it, so its length is the first
 * measure of what an order costs the server (and every replay of it, the worker).
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { forEachLimited } from '../../src/util/run-limited';

const { EventType } = temporal.api.enums.v1;

/** Events and workflow tasks of the sampled runs, with what the events were. */
export interface HistoryShape {
  /** Completed runs read. */
  runs: number;
  /** Events of the most common shape (the happy path when most runs are happy), min, max. */
  events: { typical: number; min: number; max: number };
  /** Workflow tasks (WorkflowTaskScheduled events) of the typical shape. */
  workflowTasks: number;
  /** Event types of one run of the typical shape, by count (`ActivityTaskScheduled: 3`). */
  byType: Record<string, number>;
}

/** `EVENT_TYPE_ACTIVITY_TASK_SCHEDULED` → `ActivityTaskScheduled`. */
function typeName(t: number): string {
  return (EventType[t] ?? String(t))
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_, __: string, c: string) => c.toUpperCase());
}

/** The event types of one history, by count. */
export function countEvents(history: temporal.api.history.v1.IHistory): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of history.events ?? []) {
    const name = typeName(e.eventType ?? 0);
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

/** The shape of histories: the most common length (ties: the shortest) and its event types. */
export function summarizeShapes(histories: Record<string, number>[]): HistoryShape {
  if (histories.length === 0) throw new Error('no completed run to read a history from');
  const lengths = histories.map((h) => Object.values(h).reduce((a, b) => a + b, 0));
  const byLength = new Map<number, number>();
  for (const l of lengths) byLength.set(l, (byLength.get(l) ?? 0) + 1);
  const typical = [...byLength.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]![0];
  const sample = histories[lengths.indexOf(typical)]!;
  return {
    runs: histories.length,
    events: { typical, min: Math.min(...lengths), max: Math.max(...lengths) },
    workflowTasks: sample.WorkflowTaskScheduled ?? 0,
    byType: sample,
  };
}

/**
 * Reads up to `sample` completed runs of `workflowType` on `taskQueue` (visibility's list, so
 * the runs are any the server returns first) and summarizes their histories.
 */
export async function readHistoryShape(
  client: Client,
  taskQueue: string,
  workflowType: string,
  sample = 50,
): Promise<HistoryShape> {
  const ids: Array<{ workflowId: string; runId: string }> = [];
  const query = `TaskQueue = '${taskQueue}' AND WorkflowType = '${workflowType}' AND ExecutionStatus = 'Completed'`;
  for await (const run of client.workflow.list({ query, pageSize: sample })) {
    ids.push({ workflowId: run.workflowId, runId: run.runId });
    if (ids.length >= sample) break;
  }
  const histories: Record<string, number>[] = [];
  await forEachLimited(ids, 8, async ({ workflowId, runId }) => {
    histories.push(countEvents(await client.workflow.getHandle(workflowId, runId).fetchHistory()));
  });
  return summarizeShapes(histories);
}
