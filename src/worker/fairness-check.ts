import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { msToTs } from '@temporalio/common/lib/time';
import { waitFor } from '../util/wait';

type WorkflowService = temporal.api.workflowservice.v1.WorkflowService;
const { TaskQueueType } = temporal.api.enums.v1;

/** What the probe saw: Temporal dispatched a later tenant's task before an earlier one's, or not. */
export type FairnessVerdict = 'fair' | 'first-in-first-out' | 'unknown';

/** The line a worker logs when Temporal dispatches without fairness (once, at start). */
export const FAIRNESS_OFF_MESSAGE =
  "Temporal's task queue fairness is off in this namespace: runs still start and live events " +
  "still go before replays and backfills, but tenants' fairness keys and TENANT_WEIGHTS are " +
  "ignored, so one tenant's flood delays the others. Turn it on: matching.enableFairness=true " +
  "in a self-hosted server's dynamic config, the namespace's Fairness setting on Temporal Cloud " +
  '(docs/production.md, "Fairness").';

/** How long the probe waits for Temporal to queue its tasks before it gives up (unknown). */
const PROBE_WAIT_MS = 15_000;

/**
 * Asks Temporal whether it dispatches fairly, by trying it: three workflow tasks of tenant `a`
 * then one of tenant `b` on a fresh probe queue nobody polls, then two polls. With fairness
 * on, `b`'s task comes second (each tenant's first task before any tenant's second); without,
 * the queue is first in, first out and both polls give `a`'s. The probe runs nothing (its
 * workflows are terminated after the polls, and time out within a minute if the process dies
 * first). Exact on a queue of one partition (the stack's; Temporal's default is four, where
 * each partition orders its own tasks and the polls may read any of them: docs/production.md).
 */
export async function probeFairness(
  service: WorkflowService,
  options: {
    namespace: string;
    /** The probe queue is named after it (`<taskQueue>@fairness-probe-<uuid>`). */
    taskQueue: string;
    /** Runs a long poll with a deadline (Temporal refuses one without). */
    withDeadline: <T>(deadline: number, call: () => Promise<T>) => Promise<T>;
  },
): Promise<FairnessVerdict> {
  const probeQueue = `${options.taskQueue}@fairness-probe-${randomUUID()}`;
  const ids: string[] = [];
  try {
    for (const [i, tenant] of ['a', 'a', 'a', 'b'].entries()) {
      const workflowId = `${probeQueue}/${i}-${tenant}`;
      await service.startWorkflowExecution({
        namespace: options.namespace,
        workflowId,
        workflowType: { name: 'onceflow-fairness-probe' },
        taskQueue: { name: probeQueue },
        requestId: randomUUID(),
        workflowExecutionTimeout: msToTs(60_000),
        priority: { fairnessKey: tenant },
        identity: 'onceflow-fairness-probe',
      });
      ids.push(workflowId);
    }
    // The tasks reach the queue asynchronously: polled too early, the queue holds only some.
    await waitFor(
      async () => {
        const d = await service.describeTaskQueue({
          namespace: options.namespace,
          taskQueue: { name: probeQueue },
          taskQueueType: TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
          reportStats: true,
        });
        return Number(d.stats?.approximateBacklogCount ?? 0) >= ids.length;
      },
      { timeoutMs: PROBE_WAIT_MS, intervalMs: 100, what: 'the fairness probe tasks' },
    );
    const tenants: string[] = [];
    for (let i = 0; i < 2; i++) {
      const task = await options.withDeadline(Date.now() + PROBE_WAIT_MS, () =>
        service.pollWorkflowTaskQueue({
          namespace: options.namespace,
          taskQueue: { name: probeQueue },
          identity: 'onceflow-fairness-probe',
        }),
      );
      tenants.push(task.workflowExecution?.workflowId?.slice(-1) ?? '');
    }
    if (tenants.includes('b')) return 'fair';
    return tenants.every((t) => t === 'a') ? 'first-in-first-out' : 'unknown';
  } catch {
    return 'unknown';
  } finally {
    for (const workflowId of ids)
      await service
        .terminateWorkflowExecution({
          namespace: options.namespace,
          workflowExecution: { workflowId },
          reason: 'fairness probe done',
          identity: 'onceflow-fairness-probe',
        })
        .catch(() => undefined);
  }
}

/**
 * The worker's start-up check: probes once and says so once, a warning naming the fix when
 * Temporal dispatches without fairness. Never stops the worker: without fairness every run
 * still starts and completes, only the tenants' shares are not held.
 */
export async function checkFairness(
  service: WorkflowService,
  options: Parameters<typeof probeFairness>[1] & {
    log: { info(o: object, m: string): void; warn(o: object, m: string): void };
  },
): Promise<FairnessVerdict> {
  const verdict = await probeFairness(service, options);
  if (verdict === 'fair')
    options.log.info({ fairness: verdict }, 'Temporal dispatches tenants fairly');
  else if (verdict === 'first-in-first-out')
    options.log.warn({ fairness: 'off' }, FAIRNESS_OFF_MESSAGE);
  else
    options.log.warn(
      { fairness: verdict },
      'could not tell whether Temporal dispatches tenants fairly (its probe did not answer); runs start either way',
    );
  return verdict;
}
