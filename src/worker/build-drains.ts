// Deploys with runs in flight (docs/deploying.md): this worker is one build of a Temporal
// worker deployment, and each run is pinned to the build it started on. At start the worker
// stores its bundle (./own-build.ts) and settles which build is current (./build-current.ts).
// Then, every interval, it serves each other build that has open runs, or is current, with a
// drain worker of that build, on its stored code, read back from Postgres (workflow_builds)
// and verified against its build ID; so a single-process deploy, where the old worker is
// simply stopped, leaves no run behind. At most WORKER_MAX_DRAINS drains run in one process;
// when more builds need one, they take turns (./drain-turns.ts). A build nobody serves (its
// code missing or refused) is said loudly: log, metric, `npx onceflow builds list`.
import type { Worker } from '@temporalio/worker';
import type pg from 'pg';
import { loadBuild } from '../db/workflow-build-store';
import { settleCurrentBuild, type MakeCurrentPolicy } from './build-current';
import type { BuildReport } from './build-report';
import { countOpenRuns, hasWaitingTasks, readBuilds } from './build-workload';
import { planTurns, type TurnPlan } from './drain-turns';
import { endDrain, runDrain, type Drain } from './drain-worker';
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
   * WORKER_MAX_DRAINS: drain workers at once in this process; more builds take turns. 0:
   * none, every other build is served by its own workers (kept running by the deploy).
   * Default: 3.
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
  /** WORKER_DRAIN_TURN_MS: between refreshes, a drain's turn. Default 60 000 ms. */
  intervalMs?: number;
  /** settleCurrentBuild's whole wait. Default: MAKE_CURRENT_WAIT_MS. */
  makeCurrentWaitMs?: number;
}

/** How a build is served, as a refresh reports it. */
type Served = Omit<BuildReport, 'buildId' | 'current' | 'openRuns'>;

/** The deployment of this worker: its own build, which build is current, the drains. */
export function buildDrains(options: BuildDrainsOptions) {
  const { workflowService: service, namespace, deployment, log } = options;
  const call = options.withDeadline ?? (<T>(c: () => Promise<T>) => c());
  const workload = { workflowService: service, namespace, deployment, call };
  const maxDrains = options.maxDrains ?? 3;
  const drains = new Map<string, Drain>();
  /** The refresh at which each build's last turn began; refreshes counted from 1. */
  const lastTurn = new Map<string, number>();
  let refreshes = 0;
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

  async function stopDrain(buildId: string, drain: Drain): Promise<void> {
    drains.delete(buildId);
    await endDrain(drain);
  }

  /** The stored code a drain of `buildId` may run, or why there is none (said once). */
  async function codeToServe(
    buildId: string,
    openRuns: number,
  ): Promise<{ code: string } | Served> {
    const stored = await loadBuild(options.pool, buildId);
    if (stored.state === 'missing') {
      sayOnce(`${buildId}:missing`, () =>
        log.error(
          { deployment, buildId, openRuns },
          'runs are pinned to a build whose code is not stored: no worker here can run them; start a worker of that build, or move them (docs/deploying.md, "A build nobody runs")',
        ),
      );
      return { servedBy: 'missing' };
    }
    if (stored.state === 'refused') {
      const refused = { kind: stored.kind, reason: stored.reason };
      sayOnce(`${buildId}:${stored.reason}`, () =>
        log.error(
          { deployment, buildId, openRuns, ...refused },
          'the stored code of a build is refused: no worker here runs it (docs/deploying.md, "A build whose stored code is refused")',
        ),
      );
      return { servedBy: 'refused', refused };
    }
    return { code: stored.code };
  }

  /** Starts a drain worker of `buildId` on its verified code; resolves how it is served. */
  async function startDrain(buildId: string, code: string, openRuns: number): Promise<Served> {
    lastTurn.set(buildId, refreshes);
    let worker: Worker;
    try {
      worker = await options.createWorker(buildId, code);
    } catch (err) {
      // The bundle does not load, or this process already runs a worker of that build.
      sayOnce(`${buildId}:failed:${(err as Error).message}`, () =>
        log.error(
          { err, deployment, buildId, openRuns },
          'a drain worker of a build could not be made; the next refresh tries again',
        ),
      );
      return { servedBy: 'drain-failed' };
    }
    const drain = runDrain(worker, refreshes, (err) =>
      log.error(
        { err, deployment, buildId },
        'a drain worker failed; the next refresh starts it again',
      ),
    );
    drains.set(buildId, drain);
    // A stop while the worker was made: it stops with the others, never after them.
    if (stopped) {
      await stopDrain(buildId, drain);
      return { servedBy: 'none' };
    }
    log.info(
      { deployment, buildId, openRuns },
      'serving a build of the deployment from its stored code while it has open runs or is current',
    );
    return { servedBy: 'drain' };
  }

  /**
   * Serves `buildId` with a drain worker unless it has one, its code is missing or refused,
   * or no slot is free and none is its to take (`plan`); resolves how it is served.
   */
  async function serve(buildId: string, openRuns: number, plan: TurnPlan): Promise<Served> {
    if (drains.has(buildId)) return { servedBy: 'drain' };
    if (stopped) return { servedBy: 'none' };
    if (maxDrains === 0) return { servedBy: 'its-workers' };
    const full = drains.size >= maxDrains;
    const yielding = full ? plan.yieldFor(buildId, (b) => drains.has(b)) : undefined;
    if (full && !yielding) return { servedBy: plan.rotates ? 'waiting-turn' : 'drain-limit' };
    const code = await codeToServe(buildId, openRuns);
    if (!('code' in code)) return code;
    if (yielding) {
      await stopDrain(yielding, drains.get(yielding)!);
      log.info(
        { deployment, buildId: yielding, to: buildId },
        'a drain gave its turn to a build with work waiting',
      );
    }
    return startDrain(buildId, code.code, openRuns);
  }

  /** One refresh: drains started for builds that need one, stopped for builds that do not. */
  async function refreshOnce(): Promise<BuildReport[]> {
    refreshes++;
    const { current, builds } = await readBuilds(workload);
    const runs = new Map<string, number>();
    for (const b of builds) runs.set(b, await countOpenRuns(workload, b));
    const needed = (b: string) => b !== options.buildId && (b === current || runs.get(b)! > 0);
    for (const [b, drain] of [...drains])
      if (drain.ended || !needed(b)) {
        // Read before stopping: stopDrain awaits the worker's end, which sets `ended`.
        const drained = !drain.ended;
        await stopDrain(b, drain);
        if (drained) log.info({ deployment, buildId: b }, 'build drained: its worker stopped');
      }
    const others = builds.filter(needed);
    // Whose tasks wait matters only when builds outnumber the slots (one call each; the
    // current build is served first whatever it has).
    const waiting = new Map<string, boolean>();
    if (maxDrains > 0 && others.length > maxDrains)
      for (const b of others) if (b !== current) waiting.set(b, await hasWaitingTasks(workload, b));
    const plan = planTurns({
      builds: others,
      current,
      slots: maxDrains,
      openRuns: runs,
      serving: new Map([...drains].map(([b, drain]) => [b, drain.turn])),
      lastTurn,
      hasWork: (b) => waiting.get(b) ?? true,
    });
    const found = new Map<string, Served>();
    for (const b of plan.order) found.set(b, await serve(b, runs.get(b)!, plan));
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
            'a build with open runs is served by no worker: the drain this process may run serves the current build; raise WORKER_MAX_DRAINS, or start a worker of that build (docs/deploying.md, "Drains take turns")',
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
