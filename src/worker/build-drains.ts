// Deploys with runs in flight (docs/deploying.md): this worker is one build of a Temporal
// worker deployment, and each run is pinned to the build it started on. Once the worker polls,
// its build becomes the deployment's current one (new runs start on it); and for as long as
// an older build still has open runs, this process serves them with that build's own code,
// read back from Postgres (workflow_builds), so a single-process deploy, where the old worker
// is simply stopped, leaves no run behind. A build whose code is not stored cannot be served:
// said loudly (log, metric, `npx onceflow builds`).
import type { Worker } from '@temporalio/worker';
import type pg from 'pg';
import { loadBuild } from '../db/workflow-build-store';
import { deploymentVersionOf, SYSTEM_ATTRIBUTE, visibility } from '../temporal/search-attributes';
import { tsToMs } from '@temporalio/common/lib/time';
import { waitFor } from '../util/wait';

/** What the deployment's manager needs: where it runs, and how to make a worker of a build. */
export interface BuildDrainsOptions {
  workflowService: import('@temporalio/client').WorkflowService;
  namespace: string;
  deployment: string;
  /** This worker's build. */
  buildId: string;
  pool: pg.Pool;
  /** A worker of the deployment for another build, on its stored code (same queue, activities). */
  createWorker(buildId: string, code: string): Promise<Worker>;
  /** What each refresh found, build by build (the metric, a log line). */
  onReport?(report: readonly BuildReport[]): void;
  log: { info(o: object, m: string): void; error(o: object, m: string): void };
  /** Between refreshes. Default 60 000 ms. */
  intervalMs?: number;
}

/** One build of the deployment as a refresh found it. */
export interface BuildReport {
  buildId: string;
  current: boolean;
  /** Open runs pinned to it. */
  openRuns: number;
  /**
   * Who runs them: this process's main worker, a drain worker here, the current build's own
   * workers (seen from an older build's process), or nobody (code missing, or no runs).
   */
  servedBy: 'this-worker' | 'drain' | 'its-workers' | 'missing' | 'none';
}

/** The deployment of this worker: its current build, and the drains of older builds. */
export function buildDrains(options: BuildDrainsOptions) {
  const { workflowService: service, namespace, deployment } = options;
  const drains = new Map<string, { worker: Worker; running: Promise<void> }>();
  const missingLogged = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  /**
   * Makes this build current once the server knows it (its first poll registers it), unless it
   * is an older build coming back (the server saw it before the current one): that worker
   * serves its own runs and leaves new runs where they go. A rollback is an operator's act.
   * Resolves whether this build is current.
   */
  async function makeCurrent(): Promise<boolean> {
    const d = await waitFor(
      async () => {
        const described = await service
          .describeWorkerDeployment({ namespace, deploymentName: deployment })
          .catch(() => undefined);
        const versions = described?.workerDeploymentInfo?.versionSummaries ?? [];
        return versions.some((v) => v.deploymentVersion?.buildId === options.buildId)
          ? described!.workerDeploymentInfo!
          : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: `build ${options.buildId} registered` },
    );
    const current = d.routingConfig?.currentDeploymentVersion?.buildId ?? undefined;
    const seenAt = (buildId: string | undefined) => {
      const t = d.versionSummaries?.find(
        (v) => v.deploymentVersion?.buildId === buildId,
      )?.createTime;
      return t ? tsToMs(t) : undefined;
    };
    const mine = seenAt(options.buildId);
    const theirs = seenAt(current);
    if (
      current &&
      current !== options.buildId &&
      mine !== undefined &&
      theirs !== undefined &&
      mine < theirs
    ) {
      options.log.info(
        { deployment, buildId: options.buildId, current },
        'an older build came back: it serves its own runs, new runs stay on the current build (to roll back: temporal worker deployment set-current-version)',
      );
      return false;
    }
    await service.setWorkerDeploymentCurrentVersion({
      namespace,
      deploymentName: deployment,
      buildId: options.buildId,
      identity: 'onceflow worker',
      ignoreMissingTaskQueues: true,
    });
    options.log.info({ deployment, buildId: options.buildId }, 'build is current');
    return true;
  }

  async function openRuns(buildId: string): Promise<number> {
    const { count } = await service.countWorkflowExecutions({
      namespace,
      query: visibility.allOf(
        visibility.equals(
          SYSTEM_ATTRIBUTE.workerDeploymentVersion,
          deploymentVersionOf(deployment, buildId),
        ),
        visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, 'Running'),
      ),
    });
    return Number(count ?? 0);
  }

  /** Starts a drain for each older build with open runs, stops the drains of closed ones. */
  async function refresh(): Promise<BuildReport[]> {
    const d = await service.describeWorkerDeployment({ namespace, deploymentName: deployment });
    const info = d.workerDeploymentInfo;
    const current = info?.routingConfig?.currentDeploymentVersion?.buildId;
    const builds = (info?.versionSummaries ?? [])
      .map((v) => v.deploymentVersion?.buildId)
      .filter((b): b is string => !!b);
    const report: BuildReport[] = [];
    for (const buildId of builds) {
      const runs = await openRuns(buildId);
      if (buildId === options.buildId) {
        report.push({
          buildId,
          current: buildId === current,
          openRuns: runs,
          servedBy: 'this-worker',
        });
        continue;
      }
      if (buildId === current) {
        // An older build's process (one came back): the current build runs on its own workers.
        report.push({ buildId, current: true, openRuns: runs, servedBy: 'its-workers' });
        continue;
      }
      const drain = drains.get(buildId);
      if (runs === 0) {
        if (drain) {
          drains.delete(buildId);
          shutdownIfRunning(drain.worker);
          await drain.running;
          options.log.info({ deployment, buildId }, 'build drained: its worker stopped');
        }
        report.push({ buildId, current: buildId === current, openRuns: 0, servedBy: 'none' });
        continue;
      }
      if (!drain && !stopped) {
        const code = await loadBuild(options.pool, buildId);
        if (code === undefined) {
          if (!missingLogged.has(buildId))
            options.log.error(
              { deployment, buildId, openRuns: runs },
              'runs are pinned to a build whose code is not stored: no worker can run them; start a worker of that build, or move them (docs/deploying.md, "A build nobody runs")',
            );
          missingLogged.add(buildId);
          report.push({ buildId, current: false, openRuns: runs, servedBy: 'missing' });
          continue;
        }
        const worker = await options.createWorker(buildId, code);
        drains.set(buildId, { worker, running: worker.run() });
        options.log.info(
          { deployment, buildId, openRuns: runs },
          'serving an older build until its runs close',
        );
      }
      report.push({ buildId, current: buildId === current, openRuns: runs, servedBy: 'drain' });
    }
    options.onReport?.(report);
    return report;
  }

  return {
    makeCurrent,
    refresh,
    /** Refreshes now and then every interval (errors logged: the next refresh tries again). */
    start(): void {
      const tick = () =>
        refresh().catch((err: unknown) => options.log.error({ err }, 'refreshing builds failed'));
      void tick();
      timer = setInterval(() => void tick(), options.intervalMs ?? 60_000);
      timer.unref();
    },
    /** Stops refreshing and every drain worker. */
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearInterval(timer);
      const all = [...drains.values()];
      drains.clear();
      // SIGTERM reaches every worker of the process at once: some may be stopping already.
      for (const d of all) shutdownIfRunning(d.worker);
      await Promise.all(all.map((d) => d.running));
    },
  };
}

/** Shuts a worker down unless it is already stopping (shutdown throws on a stopped worker). */
function shutdownIfRunning(worker: Worker): void {
  if (worker.getState() === 'RUNNING') worker.shutdown();
}
