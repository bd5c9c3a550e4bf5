/**
 * The floor of `npm run bench`: workflows that do nothing and workflows with three no-op
 * activities, started with client.workflow.start at the bridge's concurrency on the same
 * server, timed until all are completed; plus the CPU helpers the drain shares.
 */
import type { Client } from '@temporalio/client';
import { runLimited } from '../src/util/run-limited';
import { waitFor } from '../src/util/wait';
import { tag } from './bridge';
import { cpuDelta, cpuSeconds } from './proc-cpu';

export interface RateFigure {
  perSecond: number;
  seconds: number;
  /** CPU milliseconds per order (or workflow) by process, and `total`. */
  cpuMsPerItem: Record<string, number>;
}

export const round = (n: number, digits = 1) => Number(n.toFixed(digits));

export function perItem(cpu: Record<string, number>, items: number): Record<string, number> {
  const out: Record<string, number> = {};
  let total = 0;
  for (const [name, seconds] of Object.entries(cpu)) {
    out[name] = round((seconds * 1000) / items);
    total += seconds;
  }
  out.total = round((total * 1000) / items);
  return out;
}

/** This process's own CPU seconds (the producer, the poller and the floor's worker). */
export const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

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
