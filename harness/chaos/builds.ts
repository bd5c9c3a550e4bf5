// The builds of a chaos run's worker deployment: which build each deploy made current, the
// operator's rollback between the two deploys (and a restart that must not undo it), and, at
// the end, whether every run finished on the build it started on (docs/deploying.md).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import type { Config } from '../../src/config';
import { forEachLimited } from '../../src/util/run-limited';
import { waitFor } from '../../src/util/wait';
import {
  SEARCH_ATTRIBUTE,
  SYSTEM_ATTRIBUTE,
  visibility,
} from '../../src/temporal/search-attributes';
import type { Fleet } from './fleet';

/** What the deploy faults and the rollback need of the run. */
export interface BuildsContext {
  client: Client;
  /** The worker deployment (the task queue: WORKER_DEPLOYMENT_NAME is not set). */
  deployment: string;
  /** Temporal's CLI against the stack (the operator's tool). */
  temporalCli(args: string[]): Promise<string>;
  /** What the deploys and rollbacks saw (filled in as they run). */
  seen: {
    /** The current build after each deploy and rollback, the first before any. */
    trail: string[];
    /** Rollbacks that a restart undid (a violation). */
    undone: number;
  };
}

/** The builds context of a chaos run: its deployment, and the stack's CLI at `cli`. */
export function buildsContext(client: Client, config: Config, cli: string): BuildsContext {
  const { address, namespace } = config.temporal;
  return {
    client,
    deployment: config.worker.deploymentName ?? config.temporal.taskQueue,
    temporalCli: async (args) =>
      (
        await promisify(execFile)(cli, [...args, '--address', address, '--namespace', namespace], {
          timeout: 60_000,
        })
      ).stdout,
    seen: { trail: [], undone: 0 },
  };
}

/** The deployment's current build ('' for none), asking again while Temporal restarts. */
export function currentBuild(ctx: BuildsContext): Promise<string> {
  return waitFor(
    async () => {
      const d = await ctx.client.workflowService.describeWorkerDeployment({
        namespace: ctx.client.options.namespace,
        deploymentName: ctx.deployment,
      });
      return d.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? '';
    },
    { timeoutMs: 180_000, intervalMs: 1000, what: `the current build of ${ctx.deployment}` },
  );
}

/**
 * Runs a deploy (`redeploy` restarts every worker on the release's code) and waits for its
 * build to become current; records it. Resolves what it saw.
 */
export async function deployRelease(
  ctx: BuildsContext,
  redeploy: () => Promise<void>,
): Promise<string> {
  const before = await currentBuild(ctx);
  if (ctx.seen.trail.length === 0 && before) ctx.seen.trail.push(before);
  await redeploy();
  const after = await waitFor(
    async () => {
      const now = await currentBuild(ctx);
      return now && now !== before ? now : undefined;
    },
    { timeoutMs: 180_000, intervalMs: 500, what: 'the released build to be current' },
  );
  ctx.seen.trail.push(after);
  return `build ${after.slice(0, 12)}… current (was ${before?.slice(0, 12)}…)`;
}

/**
 * The operator rolls the last deploy back (`temporal worker deployment set-current-version`
 * to the build current before it), then a worker of the build rolled back from restarts (an
 * OOM, a node drain): once it has decided, the rollback must still hold.
 */
export async function rollBack(ctx: BuildsContext, fleet: Fleet, worker: string): Promise<string> {
  const [target, from] = [ctx.seen.trail.at(-2), ctx.seen.trail.at(-1)];
  if (!target || !from) throw new Error('a rollback needs a deploy before it');
  // As an operator would: again, if Temporal fails the call (it may be restarting).
  await waitFor(
    () =>
      ctx
        .temporalCli([
          ...['worker', 'deployment', 'set-current-version', '--yes', '--allow-no-pollers'],
          ...['--deployment-name', ctx.deployment, '--build-id', target],
        ])
        .then(() => true),
    { timeoutMs: 180_000, intervalMs: 1000, what: `the rollback to ${target}` },
  );
  const log = fleet.logOf(worker);
  const seen = log ? readFileSync(log, 'utf8').length : 0;
  await fleet.stop(worker);
  await fleet.start(worker);
  // Its decision is its log's line: it serves its own runs, or it made its build current.
  await waitFor(
    () =>
      !!log &&
      /this build serves its own runs|build is current/.test(readFileSync(log, 'utf8').slice(seen)),
    { timeoutMs: 180_000, intervalMs: 500, what: `${worker} to settle which build is current` },
  );
  const now = await currentBuild(ctx);
  if (now !== target) ctx.seen.undone++;
  ctx.seen.trail.push(now);
  return `rolled back from ${from.slice(0, 12)}… to ${target.slice(0, 12)}…; ${worker} restarted; current is ${now === target ? 'still the rollback' : `${now.slice(0, 12)}… (UNDONE)`}`;
}

/** Every status of a closed run. */
const CLOSED = ['Completed', 'Failed', 'Canceled', 'Terminated', 'TimedOut', 'ContinuedAsNew'];

/** Where the run's runs finished, by build, and how many changed build on the way. */
export interface RunsOnBuilds {
  /** Closed runs read (runs deleted when time passed are gone). */
  checked: number;
  /** Runs with a workflow task completed by a build other than their first one's. */
  changedBuild: string[];
  /** Runs per build they finished on. */
  byBuild: Record<string, number>;
}

/**
 * Reads every closed run of the chaos run (entity IDs under `prefix`): each workflow task
 * completion names the build that completed it; all of a run's must be one build.
 */
export async function readRunsOnBuilds(client: Client, prefix: string): Promise<RunsOnBuilds> {
  const runs: Array<{ workflowId: string; runId: string }> = [];
  const query = visibility.allOf(
    visibility.startsWith(SEARCH_ATTRIBUTE.entityId, prefix),
    visibility.oneOf(SYSTEM_ATTRIBUTE.executionStatus, CLOSED),
  );
  for await (const w of client.workflow.list({ query }))
    runs.push({ workflowId: w.workflowId, runId: w.runId });
  const result: RunsOnBuilds = { checked: 0, changedBuild: [], byBuild: {} };
  await forEachLimited(runs, 8, async ({ workflowId, runId }) => {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const builds = new Set(
      (history.events ?? [])
        .map((e) => e.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId)
        .filter((b): b is string => !!b),
    );
    result.checked++;
    if (builds.size > 1) result.changedBuild.push(`${workflowId}: ${[...builds].join(' then ')}`);
    const build = [...builds][0] ?? 'unversioned';
    result.byBuild[build] = (result.byBuild[build] ?? 0) + 1;
  });
  return result;
}

/** The report's line: the current builds in turn, and the runs each build finished. */
export function describeBuilds(seen: BuildsContext['seen'], runs: RunsOnBuilds): string {
  const byBuild = Object.entries(runs.byBuild)
    .map(([b, n]) => `${b.slice(0, 12)}… ${n}`)
    .join(', ');
  return `builds (by their first 12 hex digits): current ${seen.trail.map((b) => `${b.slice(0, 12)}…`).join(' -> ')}; ${runs.checked} closed runs, each on one build: ${byBuild}`;
}
