// Deploys with runs in flight (docs/deploying.md): this worker is one build of a Temporal
// worker deployment, and each run is pinned to the build it started on. At start the worker
// stores its bundle (./own-build.ts) and settles which build is current (./build-current.ts).
// Then, every interval, it serves each other build that has open runs, or is current, with a
// drain worker of that build, on its stored code, read back from Postgres (workflow_builds)
// and verified against its build ID; so a single-process deploy, where the old worker is
// simply stopped, leaves no run behind. At most WORKER_MAX_DRAINS drains run in one process.
// A build nobody serves (its code missing or refused, or over the limit) is said loudly: log,
// metric, `npx onceflow builds list`.
import type { Worker } from '@temporalio/worker';
import type pg from 'pg';
import { loadBuild } from '../db/workflow-build-store';
import { deploymentVersionOf, SYSTEM_ATTRIBUTE, visibility } from '../temporal/search-attributes';
import { settleCurrentBuild, type MakeCurrentPolicy } from './build-current';
import type { BuildReport } from './build-report';
import { storeOwnBuild } from './own-build';

/** What the deployment's manager needs: where it runs, and how to make a worker of a build. */
export interface BuildDrainsOptions {
  workflowService: import('@temporalio/client').WorkflowService;
  namespace: string;
  deployment: string;
  /** This worker's build. */
  buildId: string;
  /** This worker's bundle (hashing to buildId), stored at start. */
  code: string;
  pool: pg.Pool;
  /** A worker of the deployment for another build, on its stored code (same queue, activities). */
  createWorker(buildId: string, code: string): Promise<Worker>;
  /** WORKER_MAKE_CURRENT. Default: `auto`. */
  makeCurrent?: MakeCurrentPolicy;
  /**
   * WORKER_MAX_DRAINS: drain workers at once in this process. 0: none, every other build is
   * served by its own workers (kept running by the deploy). Default: 3.
   */
  maxDrains?: number;
  /** Bounds one Temporal call of a refresh (a hung call would hold every later one). Default: none. */
  withDeadline?<T>(call: () => Promise<T>): Promise<T>;
  /** What each refresh found, build by build (the metric, a log line). */
  onReport?(report: readonly BuildReport[]): void;
  log: {
    info(o: object, m: string): void;
    warn(o: object, m: string): void;
    error(o: object, m: string): void;
  };
  /** Between refreshes. Default 60 000 ms. */
  intervalMs?: number;
  /** settleCurrentBuild's whole wait. Default: MAKE_CURRENT_WAIT_MS. */
  makeCurrentWaitMs?: number;
}

interface Drain {
  worker: Worker;
  running: Promise<void>;
  ended: boolean;
}

/** The deployment of this worker: its own build, which build is current, the drains. */
export function buildDrains(options: BuildDrainsOptions) {
  const { workflowService: service, namespace, deployment, log } = options;
  const call = options.withDeadline ?? (<T>(c: () => Promise<T>) => c());
  const maxDrains = options.maxDrains ?? 3;
  const drains = new Map<string, Drain>();
  const own = storeOwnBuild({
    pool: options.pool,
    buildId: options.buildId,
    code: options.code,
    log,
  });
  /** Lines said once per build and cause, not every refresh. */
  const said = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let starting: Promise<void> | undefined;
  let inFlight: Promise<BuildReport[]> | undefined;

  const makeCurrent = () =>
    settleCurrentBuild({
      workflowService: service,
      namespace,
      deployment,
      buildId: options.buildId,
      policy: options.makeCurrent,
      waitMs: options.makeCurrentWaitMs,
      stopped: () => stopped,
      log,
    });

  function sayOnce(key: string, say: () => void): void {
    if (said.has(key)) return;
    said.add(key);
    say();
  }

  async function openRuns(buildId: string): Promise<number> {
    const { count } = await call(() =>
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

  async function stopDrain(buildId: string, drain: Drain): Promise<void> {
    drains.delete(buildId);
    shutdownIfRunning(drain.worker);
    await drain.running;
  }

  /**
   * Serves `buildId` with a drain worker unless it has one, the limit is reached, or its code
   * is missing or refused; resolves how it is served.
   */
  async function serve(
    buildId: string,
    openRunCount: number,
  ): Promise<Omit<BuildReport, 'buildId' | 'current' | 'openRuns'>> {
    if (drains.has(buildId)) return { servedBy: 'drain' };
    if (stopped) return { servedBy: 'none' };
    if (maxDrains === 0) return { servedBy: 'its-workers' };
    if (drains.size >= maxDrains) return { servedBy: 'drain-limit' };
    const stored = await loadBuild(options.pool, buildId);
    if (stored.state === 'missing') {
      sayOnce(`${buildId}:missing`, () =>
        log.error(
          { deployment, buildId, openRuns: openRunCount },
          'runs are pinned to a build whose code is not stored: no worker here can run them; start a worker of that build, or move them (docs/deploying.md, "A build nobody runs")',
        ),
      );
      return { servedBy: 'missing' };
    }
    if (stored.state === 'refused') {
      const refused = { kind: stored.kind, reason: stored.reason };
      sayOnce(`${buildId}:${stored.reason}`, () =>
        log.error(
          { deployment, buildId, openRuns: openRunCount, ...refused },
          'the stored code of a build is refused: no worker here runs it (docs/deploying.md, "A build whose stored code is refused")',
        ),
      );
      return { servedBy: 'refused', refused };
    }
    let worker: Worker;
    try {
      worker = await options.createWorker(buildId, stored.code);
    } catch (err) {
      // The bundle does not load, or this process already runs a worker of that build.
      sayOnce(`${buildId}:failed:${(err as Error).message}`, () =>
        log.error(
          { err, deployment, buildId, openRuns: openRunCount },
          'a drain worker of a build could not be made; the next refresh tries again',
        ),
      );
      return { servedBy: 'drain-failed' };
    }
    const drain: Drain = { worker, running: Promise.resolve(), ended: false };
    drain.running = worker.run().then(
      () => void (drain.ended = true),
      (err: unknown) => {
        drain.ended = true;
        log.error(
          { err, deployment, buildId },
          'a drain worker failed; the next refresh starts it again',
        );
      },
    );
    drains.set(buildId, drain);
    // A stop while the worker was made: it stops with the others, never after them.
    if (stopped) {
      await stopDrain(buildId, drain);
      return { servedBy: 'none' };
    }
    log.info(
      { deployment, buildId, openRuns: openRunCount },
      'serving a build of the deployment from its stored code while it has open runs or is current',
    );
    return { servedBy: 'drain' };
  }

  /** One refresh: drains started for builds that need one, stopped for builds that do not. */
  async function refreshOnce(): Promise<BuildReport[]> {
    const d = await call(() =>
      service.describeWorkerDeployment({ namespace, deploymentName: deployment }),
    );
    const info = d.workerDeploymentInfo;
    const current = info?.routingConfig?.currentDeploymentVersion?.buildId || undefined;
    const builds = [
      ...new Set(
        (info?.versionSummaries ?? [])
          .map((v) => v.deploymentVersion?.buildId ?? '')
          .filter(Boolean),
      ),
    ];
    const runs = new Map<string, number>();
    for (const b of builds) runs.set(b, await openRuns(b));
    const needed = (b: string) => b !== options.buildId && (b === current || runs.get(b)! > 0);
    for (const [b, drain] of [...drains])
      if (drain.ended || !needed(b)) {
        // Read before stopping: stopDrain awaits the worker's end, which sets `ended`.
        const drained = !drain.ended;
        await stopDrain(b, drain);
        if (drained) log.info({ deployment, buildId: b }, 'build drained: its worker stopped');
      }
    // The current build first (new runs land there), then those already served here, then
    // those with the most open runs: every process picks alike, and drains do not churn.
    const order = builds.filter(needed).sort((a, b) => {
      const rank = (x: string) => [x === current ? 0 : 1, drains.has(x) ? 0 : 1, -runs.get(x)!];
      const [ra, rb] = [rank(a), rank(b)];
      return ra[0]! - rb[0]! || ra[1]! - rb[1]! || ra[2]! - rb[2]! || a.localeCompare(b);
    });
    const found = new Map<string, Omit<BuildReport, 'buildId' | 'current' | 'openRuns'>>();
    for (const b of order) found.set(b, await serve(b, runs.get(b)!));
    const report = builds.map((buildId): BuildReport => {
      const base = { buildId, current: buildId === current, openRuns: runs.get(buildId)! };
      if (buildId === options.buildId) {
        const refused = own.refusal();
        return { ...base, servedBy: 'this-worker', ...(refused ? { refused } : {}) };
      }
      return { ...base, ...(found.get(buildId) ?? { servedBy: 'none' }) };
    });
    for (const r of report)
      if (r.servedBy === 'drain-limit')
        sayOnce(`${r.buildId}:drain-limit`, () =>
          log.error(
            { deployment, buildId: r.buildId, openRuns: r.openRuns, maxDrains },
            'a build with open runs is served by no worker: this process is at WORKER_MAX_DRAINS; raise it, or start a worker of that build (docs/deploying.md, "What a drain costs")',
          ),
        );
    options.onReport?.(report);
    return report;
  }

  /** A refresh; while one runs, a second caller shares it (one refresh at a time). */
  function refresh(): Promise<BuildReport[]> {
    if (stopped) return Promise.resolve([]);
    inFlight ??= refreshOnce().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  }

  return {
    makeCurrent,
    refresh,
    /**
     * Stores this build, settles which build is current (throws a BuildNotCurrentError when
     * that cannot be done within the wait), then refreshes now and every interval (errors
     * logged: the next refresh tries again).
     */
    start(): Promise<void> {
      own.start();
      starting ??= (async () => {
        await makeCurrent();
        if (stopped) return;
        const tick = () =>
          refresh().catch((err: unknown) => log.error({ err }, 'refreshing builds failed'));
        void tick();
        timer = setInterval(() => void tick(), options.intervalMs ?? 60_000);
        timer.unref();
      })();
      return starting;
    },
    /** Stops storing, refreshing and every drain worker; no drain starts after it resolves. */
    async stop(): Promise<void> {
      stopped = true;
      own.stop();
      if (timer) clearInterval(timer);
      await starting?.catch(() => undefined);
      await inFlight?.catch(() => undefined);
      // SIGTERM reaches every worker of the process at once: some may be stopping already.
      await Promise.all([...drains].map(([b, drain]) => stopDrain(b, drain)));
    },
  };
}

/** Shuts a worker down unless it is already stopping (shutdown throws on a stopped worker). */
function shutdownIfRunning(worker: Worker): void {
  if (worker.getState() === 'RUNNING') worker.shutdown();
}
