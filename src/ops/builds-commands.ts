/**
 * `npx onceflow builds list`: the builds of the worker deployment (docs/deploying.md), each
 * with its open runs, whether it is current and whether its code is stored and verified (a
 * worker can serve its runs after its own workers stopped), or refused and why. A build that
 * keeps runs for days (a run parked, waiting for an approval) shows here, not by surprise.
 */
import { parseArgs } from 'node:util';
import { loadBuild, type BuildRefusal } from '../db/workflow-build-store';
import { deploymentVersionOf, SYSTEM_ATTRIBUTE, visibility } from '../temporal/search-attributes';
import { workflowListUrl } from '../temporal/ui-links';
import type { OpsContext } from './context';
import { formatTable, type CommandResult } from './output';

/** `builds list [--deployment NAME]` (default: WORKER_DEPLOYMENT_NAME, else the task queue). */
export async function listDeploymentBuilds(
  ctx: OpsContext,
  argv: string[],
): Promise<CommandResult> {
  const { values } = parseArgs({
    args: argv,
    options: { deployment: { type: 'string' } },
    strict: true,
  });
  const { config } = ctx;
  const deployment = values.deployment ?? config.worker.deploymentName ?? config.temporal.taskQueue;
  const client = await ctx.temporal();
  const { namespace, uiUrl } = config.temporal;
  const described = await client.workflowService.describeWorkerDeployment({
    namespace,
    deploymentName: deployment,
  });
  const info = described.workerDeploymentInfo;
  const current = info?.routingConfig?.currentDeploymentVersion?.buildId;
  const builds: Array<{
    buildId: string;
    current: boolean;
    openRuns: number;
    /** Its stored code: verified against its build ID and this SDK, missing, or refused. */
    code: 'verified' | 'missing' | 'refused';
    refused?: BuildRefusal;
    uiUrl: string;
  }> = [];
  for (const v of info?.versionSummaries ?? []) {
    const buildId = v.deploymentVersion?.buildId;
    if (!buildId) continue;
    const query = visibility.allOf(
      visibility.equals(
        SYSTEM_ATTRIBUTE.workerDeploymentVersion,
        deploymentVersionOf(deployment, buildId),
      ),
      visibility.equals(SYSTEM_ATTRIBUTE.executionStatus, 'Running'),
    );
    const { count } = await client.workflowService.countWorkflowExecutions({ namespace, query });
    const stored = await loadBuild(ctx.db(), buildId);
    builds.push({
      buildId,
      current: buildId === current,
      openRuns: Number(count ?? 0),
      code: stored.state,
      ...(stored.state === 'refused'
        ? { refused: { kind: stored.kind, reason: stored.reason } }
        : {}),
      uiUrl: workflowListUrl(uiUrl, namespace, query),
    });
  }
  const note = (b: (typeof builds)[number]) =>
    b.refused
      ? `STORED CODE REFUSED (${b.refused.kind}): ${b.refused.reason}; only a worker of this build runs its runs (docs/deploying.md, "A build whose stored code is refused")`
      : b.current
        ? 'current: new runs start here'
        : b.openRuns === 0
          ? 'drained'
          : b.code === 'verified'
            ? 'its runs finish on it (a worker serves it from the stored code)'
            : 'NOBODY CAN RUN ITS RUNS: its code is not stored; start a worker of this build';
  return {
    json: { deployment, current, builds },
    human: [
      formatTable(
        ['BUILD', 'OPEN RUNS', 'CODE', 'NOTE'],
        builds.map((b) => [b.buildId, b.openRuns, b.code, note(b)]),
      ),
      `deployment ${deployment}; a build's open runs in the Web UI: ${builds.find((b) => !b.current && b.openRuns > 0)?.uiUrl ?? 'none besides the current one'}`,
    ].join('\n'),
  };
}
