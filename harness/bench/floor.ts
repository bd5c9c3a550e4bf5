/**
 * The floor of `npm run bench`: workflows that do nothing and workflows with three no-op
 * activities, started with client.workflow.start at the bridge's concurrency on the same
 * server, timed until all are completed.
 */
import { loadavg } from 'node:os';
import type { Client } from '@temporalio/client';
import { runLimited } from '../../src/util/run-limited';
import { waitFor } from '../../src/util/wait';
import { tag } from './bridge-runs';
import { cpuDelta, cpuSeconds, perItem, round, selfCpu } from './proc-cpu';

export interface RateFigure {
  perSecond: number;
  seconds: number;
  /** CPU milliseconds per order (or workflow) by process, and `total`. */
  cpuMsPerItem: Record<string, number>;
  /** The 1-minute load average when the measure began and ended: how busy the machine was. */
  load?: { before: number; after: number };
}

/** The floor's workflow types (floor-workflows.ts). */
export type FloorWorkflowType = keyof typeof import('./floor-workflows');

/**
 * Starts `n` workflows of `workflowType` on `taskQueue`, `concurrency` at a time, and times
 * them until all are completed, with the CPU of the stack's processes and of this one. `start`
 * replaces the bare start (`client.workflow.start` with no input) for the i-th workflow.
 */
export async function measureFloor(
  client: Client,
  taskQueue: string,
  workflowType: FloorWorkflowType,
  n: number,
  concurrency: number,
  stackPids: Record<string, number>,
  start?: (i: number) => Promise<void>,
): Promise<RateFigure> {
  const prefix = tag(`floor-${workflowType}`);
  const loadBefore = loadavg()[0]!;
  const before = { ...cpuSeconds(stackPids), bench: selfCpu() };
  const started = performance.now();
  await runLimited(
    Array.from({ length: n }, (_, i) => async () => {
      if (start) return start(i);
      await client.workflow.start(workflowType, {
        taskQueue,
        workflowId: `${prefix}-${i}`,
        args: [],
      });
    }),
    concurrency,
  );
  await waitFor(
    async () =>
      (
        await client.workflow.count(
          `TaskQueue = '${taskQueue}' AND WorkflowType = '${workflowType}' AND ExecutionStatus = 'Completed'`,
        )
      ).count >= n,
    { timeoutMs: 600_000, intervalMs: 250, what: `${n} ${workflowType} workflows to complete` },
  );
  const seconds = (performance.now() - started) / 1000;
  const after = { ...cpuSeconds(stackPids), bench: selfCpu() };
  return {
    perSecond: round(n / seconds),
    seconds: round(seconds),
    cpuMsPerItem: perItem(cpuDelta(before, after), n),
    load: { before: loadBefore, after: loadavg()[0]! },
  };
}
