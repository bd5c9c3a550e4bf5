/**
 * `npx onceflow builds prune [--deployment NAME] [--older-than-days 7] [--keep 3] [--dry-run]`:
 * removes the stored code of builds no run can need any more, so workflow_builds stays the size
 * of the builds in use instead of one bundle per build ever run. A build goes only when all of
 * these hold: the deployment knows it (a build it does not list may be another deployment's,
 * whose runs this command cannot count), it is neither current nor ramping, no open run is
 * pinned to it, it was stored more than `--older-than-days` ago, and it is not one of the
 * `--keep` newest stored builds (the likeliest rollback targets; a build rolled back to after
 * its code went is stored again by its own worker at start). Runs as the role that owns the
 * table (the one that applies migrations): no other role may remove a build (migration 0012).
 */
import { parseArgs } from 'node:util';
import { listStoredBuilds, removeBuilds, type StoredBuildRow } from '../db/workflow-build-store';
import { GRPC_STATUS, grpcStatusOf } from '../temporal/grpc-status';
import { deploymentVersionOf, SYSTEM_ATTRIBUTE, visibility } from '../temporal/search-attributes';
import type { OpsContext } from './context';
import { ConfigError } from '../config';
import { formatTable, parsePositiveInt, type CommandResult } from './output';

/** What prune knows of one stored build, and what it decides. */
export interface PruneCandidate extends StoredBuildRow {
  /** Listed among the deployment's versions. */
  known: boolean;
  current: boolean;
  ramping: boolean;
  /** Open runs pinned to it (counted only for builds that could go). */
  openRuns?: number;
}

export interface PruneRules {
  now: Date;
  olderThanDays: number;
  keep: number;
}

/** Why a build is kept, or undefined when it may go (its open runs still to be counted). */
export function keepReason(b: PruneCandidate, rank: number, rules: PruneRules): string | undefined {
  if (!b.known) return "not one of the deployment's builds: its runs are not counted here";
  if (b.current) return 'current';
  if (b.ramping) return 'ramping';
  if (rank < rules.keep) return `one of the ${rules.keep} newest stored builds`;
  const ageDays = (rules.now.getTime() - b.storedAt.getTime()) / 86_400_000;
  if (ageDays < rules.olderThanDays) return `stored ${ageDays.toFixed(1)} day(s) ago`;
  if (b.openRuns === undefined || b.openRuns > 0)
    return `${b.openRuns ?? 'uncounted'} open run(s) pinned to it`;
  return undefined;
}

/** Postgres refused the DELETE for want of the privilege: only the table's owner may prune. */
function isNotOwner(err: unknown): boolean {
  return (err as { code?: string })?.code === '42501';
}

export async function pruneBuilds(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { values } = parseArgs({
    args: argv,
    options: {
      deployment: { type: 'string' },
      'older-than-days': { type: 'string' },
      keep: { type: 'string' },
      'dry-run': { type: 'boolean' },
    },
    strict: true,
  });
  const rules: PruneRules = {
    now: new Date(),
    olderThanDays: parsePositiveInt(values['older-than-days'], '--older-than-days', 7),
    keep: parsePositiveInt(values.keep, '--keep', 3),
  };
  const { config } = ctx;
  const deployment = values.deployment ?? config.worker.deploymentName ?? config.temporal.taskQueue;
  const client = await ctx.temporal();
  const { namespace } = config.temporal;
  // A deployment Temporal does not know lists no build: every stored build is kept.
  const info = await client.workflowService
    .describeWorkerDeployment({ namespace, deploymentName: deployment })
    .then(
      (r) => r.workerDeploymentInfo,
      (err: unknown) => {
        if (grpcStatusOf(err) === GRPC_STATUS.NOT_FOUND) return undefined;
        throw err;
      },
    );
  const known = new Set(
    (info?.versionSummaries ?? []).flatMap((v) => v.deploymentVersion?.buildId ?? []),
  );
  const current = info?.routingConfig?.currentDeploymentVersion?.buildId;
  const ramping = info?.routingConfig?.rampingDeploymentVersion?.buildId;
  const stored = await listStoredBuilds(ctx.db());
  const builds: PruneCandidate[] = stored.map((b) => ({
    ...b,
    known: known.has(b.buildId),
    current: b.buildId === current,
    ramping: b.buildId === ramping,
  }));
  // Open runs are counted only for builds every other rule lets go (a visibility query each).
  for (const [rank, b] of builds.entries()) {
    if (keepReason({ ...b, openRuns: 0 }, rank, rules) !== undefined) continue;
    const query = visibility.allOf(
      visibility.equals(
        SYSTEM_ATTRIBUTE.workerDeploymentVersion,
        deploymentVersionOf(deployment, b.buildId),
      ),
      visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, 'Running'),
    );
    const { count } = await client.workflowService.countWorkflowExecutions({ namespace, query });
    b.openRuns = Number(count ?? 0);
  }
  const decided = builds.map((b, rank) => ({ ...b, keep: keepReason(b, rank, rules) }));
  const gone = decided.filter((b) => b.keep === undefined);
  let removed = 0;
  if (!values['dry-run'] && gone.length > 0) {
    try {
      removed = await removeBuilds(
        ctx.db(),
        gone.map((b) => b.buildId),
      );
    } catch (err) {
      if (isNotOwner(err))
        throw new ConfigError([
          {
            setting: 'DATABASE_URL',
            message:
              'builds prune must connect as the role that owns workflow_builds (the one that applies the migrations): no other role may remove a stored build',
          },
        ]);
      throw err;
    }
  }
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(2);
  return {
    json: {
      deployment,
      dryRun: values['dry-run'] === true,
      removed,
      builds: decided.map((b) => ({
        buildId: b.buildId,
        storedAt: b.storedAt.toISOString(),
        bytes: b.bytes,
        ...(b.openRuns !== undefined ? { openRuns: b.openRuns } : {}),
        decision: b.keep === undefined ? 'remove' : 'keep',
        ...(b.keep !== undefined ? { why: b.keep } : {}),
      })),
    },
    human: [
      formatTable(
        ['BUILD', 'STORED', 'MiB', 'DECISION'],
        decided.map((b) => [
          b.buildId,
          b.storedAt.toISOString(),
          mib(b.bytes),
          b.keep === undefined
            ? values['dry-run']
              ? 'would remove'
              : 'removed'
            : `kept: ${b.keep}`,
        ]),
      ),
      `deployment ${deployment}: ${values['dry-run'] ? `${gone.length} build(s) would be removed` : `${removed} build(s) removed`}, ${mib(gone.reduce((s, b) => s + b.bytes, 0))} MiB`,
    ].join('\n'),
  };
}
