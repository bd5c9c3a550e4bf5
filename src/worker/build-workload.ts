// What Temporal says about a worker deployment's builds: which there are and which is current,
// each one's open runs (visibility), and whether tasks of its runs wait on its task queues (a signal, a cancel, a fired timer or an
// activity of a run pinned to it, with no worker of that build polling).
import type { WorkflowService } from '@temporalio/client';
import { deploymentVersionOf, SYSTEM_ATTRIBUTE, visibility } from '../temporal/search-attributes';

/** Where the build is, and how each Temporal call is made (a deadline on it). */
export interface BuildWorkloadOptions {
  workflowService: WorkflowService;
  namespace: string;
  deployment: string;
  /** Wraps each call (a deadline). Default: none. */
  call?<T>(c: () => Promise<T>): Promise<T>;
}

const direct = <T>(c: () => Promise<T>) => c();

/** The deployment's builds (each once) and its current build, if it has one. */
export async function readBuilds(
  options: BuildWorkloadOptions,
): Promise<{ current?: string; builds: string[] }> {
  const { workflowService: service, namespace, deployment } = options;
  const d = await (options.call ?? direct)(() =>
    service.describeWorkerDeployment({ namespace, deploymentName: deployment }),
  );
  const info = d.workerDeploymentInfo;
  const current = info?.routingConfig?.currentDeploymentVersion?.buildId || undefined;
  const builds = (info?.versionSummaries ?? []).map((v) => v.deploymentVersion?.buildId ?? '');
  return { current, builds: [...new Set(builds.filter(Boolean))] };
}

/** Runs pinned to `buildId` that are still open. */
export async function countOpenRuns(options: BuildWorkloadOptions, buildId: string) {
  const { workflowService: service, namespace, deployment } = options;
  const { count } = await (options.call ?? direct)(() =>
    service.countWorkflowExecutions({
      namespace,
      query: visibility.allOf(
        visibility.equals(
          SYSTEM_ATTRIBUTE.workerDeploymentVersion,
          deploymentVersionOf(deployment, buildId),
        ),
        visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, 'Running'),
      ),
    }),
  );
  return Number(count ?? 0);
}

/**
 * Whether tasks wait on the build's task queues (workflow or activity): the backlog Temporal
 * reports for the version (approximate, and some seconds late; a workflow task on a stopped
 * worker's sticky queue shows once it moves to the version's queue, 5 s later). True when it
 * cannot tell (the call fails, or the server reports no statistics): a build that might have
 * work takes its turn.
 */
export async function hasWaitingTasks(
  options: BuildWorkloadOptions,
  buildId: string,
): Promise<boolean> {
  const { workflowService: service, namespace, deployment } = options;
  try {
    const described = await (options.call ?? direct)(() =>
      service.describeWorkerDeploymentVersion({
        namespace,
        deploymentVersion: { deploymentName: deployment, buildId },
        reportTaskQueueStats: true,
      }),
    );
    const queues = described.versionTaskQueues ?? [];
    if (!queues.some((q) => q.stats)) return true;
    return queues.some((q) => Number(q.stats?.approximateBacklogCount ?? 0) > 0);
  } catch {
    return true;
  }
}
