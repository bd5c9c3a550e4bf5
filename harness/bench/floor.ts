/**
 * The floor of `npm run bench`: workflows that do nothing and workflows with three no-op
 * activities, started with client.workflow.start at the bridge's concurrency on the same
 * server, timed until all are completed.
 */
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
}

export async function measureFloor(
  client: Client,
  taskQueue: string,
  workflowType: 'floorEmpty' | 'floorThreeActivities',
  n: number,
  concurrency: number,
  stackPids: Record<string, number>,
): Promise<RateFigure> {
  const prefix = tag(`floor-${workflowType}`);
  const before = { ...cpuSeconds(stackPids), bench: selfCpu() };
  const started = performance.now();
  await runLimited(
    Array.from({ length: n }, (_, i) => async () => {
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
  };
}
