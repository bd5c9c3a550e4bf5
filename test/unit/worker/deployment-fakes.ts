import { gzipSync } from 'node:zlib';
import { msToTs } from '@temporalio/common/lib/time';
import type { Worker } from '@temporalio/worker';
import type pg from 'pg';
import { buildIdOf, WORKFLOW_SDK_VERSION } from '../../../src/db/workflow-build-store';
import { buildDrains, type BuildDrainsOptions } from '../../../src/worker/build-drains';

/** The code of the build named `name`, and its build ID (the code's hash, as in production). */
export const codeOf = (name: string) => `module.exports = ${JSON.stringify(name)};`;
export const idOf = (name: string) => buildIdOf(codeOf(name));

/** A worker whose state the test drives, as the SDK's does: shutdown throws unless running. */
export function fakeWorker() {
  let state = 'RUNNING';
  let finish: () => void = () => undefined;
  const running = new Promise<void>((r) => (finish = r));
  return {
    getState: () => state,
    run: () => running,
    shutdown() {
      if (state !== 'RUNNING') throw new Error(`Not running. Current state: ${state}`);
      state = 'STOPPED';
      finish();
    },
    /** What SIGTERM does: the SDK's runtime stops every worker of the process itself. */
    stopBySignal() {
      state = 'STOPPED';
      finish();
    },
  };
}

/** One build of the fake deployment: its open runs, and whether it was ever current. */
export interface FakeBuild {
  runs: number;
  activated?: boolean;
}

/**
 * A fake deployment whose builds (by name) were first seen in the order of `builds`, current
 * `current`; a fake workflow_builds table holding `stored` (name → code, default each build's
 * own) with the SDK version `sdk` of each row.
 */
export function fakeDeployment(
  builds: Record<string, FakeBuild>,
  current: string | undefined,
  stored: Record<string, string> = {},
) {
  const state = {
    current: current && idOf(current),
    madeCurrent: [] as string[],
    /** Tasks waiting on each build's queues (by name); undefined: the server reports none. */
    backlog: {} as Record<string, number> | undefined,
  };
  const rows = new Map(
    Object.keys(builds).map((name) => [idOf(name), stored[name] ?? codeOf(name)] as const),
  );
  const sdk = new Map<string, string>();
  const nameOf = (id: string) => Object.keys(builds).find((name) => idOf(name) === id) ?? id;
  const service = {
    describeWorkerDeployment: async () => ({
      workerDeploymentInfo: {
        routingConfig: { currentDeploymentVersion: { buildId: state.current } },
        versionSummaries: Object.keys(builds).map((name, i) => ({
          deploymentVersion: { buildId: idOf(name) },
          createTime: msToTs(Date.parse('2026-11-01T00:00:00Z') + i * 60_000),
          ...(builds[name]!.activated || idOf(name) === state.current
            ? { firstActivationTime: msToTs(Date.parse('2026-11-02T00:00:00Z')) }
            : {}),
        })),
      },
    }),
    setWorkerDeploymentCurrentVersion: async ({ buildId }: { buildId: string }) => {
      state.madeCurrent.push(nameOf(buildId));
      state.current = buildId;
      return {};
    },
    describeWorkerDeploymentVersion: async (r: { deploymentVersion: { buildId: string } }) => {
      const count = state.backlog?.[nameOf(r.deploymentVersion.buildId)] ?? 0;
      const stats = state.backlog ? { stats: { approximateBacklogCount: count } } : {};
      return { versionTaskQueues: [{ name: 'orders', type: 1, ...stats }] };
    },
    countWorkflowExecutions: async ({ query }: { query: string }) => {
      const name = Object.keys(builds).find((n) => query.includes(`:${idOf(n)}`));
      return { count: builds[name ?? '']?.runs ?? 0 };
    },
  };
  const pool = {
    query: async (sql: string, params: unknown[]) => {
      const id = params[0] as string;
      if (sql.startsWith('INSERT')) {
        rows.set(id, codeOf(nameOf(id)));
        return { rowCount: 1, rows: [] };
      }
      const code = rows.get(id);
      if (code === undefined) return { rowCount: 0, rows: [] };
      const row = { code_gzip: gzipSync(code), sdk_version: sdk.get(id) ?? WORKFLOW_SDK_VERSION };
      return { rowCount: 1, rows: [row] };
    },
  } as unknown as pg.Pool;
  return {
    service: service as unknown as BuildDrainsOptions['workflowService'],
    raw: service,
    pool,
    state,
    /** Stores no row for the build (its workers ran before workflow_builds existed). */
    forget: (name: string) => rows.delete(idOf(name)),
    /** Records the row of `name` as built with another SDK. */
    builtWith: (name: string, version: string) => sdk.set(idOf(name), version),
  };
}

/** Build drains of the build `mine` over a fake deployment; the drain workers it made. */
export function drainsOf(
  deployment: ReturnType<typeof fakeDeployment>,
  mine: string,
  over: Partial<BuildDrainsOptions> = {},
) {
  const made: Array<{ buildId: string; worker: ReturnType<typeof fakeWorker> }> = [];
  const logged: string[] = [];
  const drains = buildDrains({
    workflowService: deployment.service,
    namespace: 'default',
    deployment: 'orders',
    buildId: idOf(mine),
    code: codeOf(mine),
    pool: deployment.pool,
    createWorker: async (buildId) => {
      const worker = fakeWorker();
      made.push({ buildId, worker });
      return worker as unknown as Worker;
    },
    log: {
      info: (_o, m) => logged.push(m),
      warn: (_o, m) => logged.push(m),
      error: (_o, m) => logged.push(m),
    },
    makeCurrentWaitMs: 2_000,
    ...over,
  });
  return { drains, made, logged };
}

/** A report as [build name, served by] pairs, for assertions. */
export function servedBy(
  report: ReadonlyArray<{ buildId: string; servedBy: string }>,
  names: string[],
) {
  const nameOf = (id: string) => names.find((n) => idOf(n) === id) ?? id;
  return report.map((b) => [nameOf(b.buildId), b.servedBy]);
}
