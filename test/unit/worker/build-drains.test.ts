import { strict as assert } from 'node:assert';
import { gzipSync } from 'node:zlib';
import { msToTs } from '@temporalio/common/lib/time';
import type { Worker } from '@temporalio/worker';
import type pg from 'pg';
import { buildDrains, type BuildDrainsOptions } from '../../../src/worker/build-drains';

/** A worker whose state the test drives, as the SDK's does: shutdown throws unless running. */
function fakeWorker() {
  let state = 'RUNNING';
  let finish: () => void = () => undefined;
  const running = new Promise<void>((r) => (finish = r));
  const worker = {
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
  return worker;
}

/**
 * Build drains of this worker's build `mine` (default 'new') over a fake deployment whose
 * builds were first seen in the order of `openRunsByBuild` and whose current build is 'new'.
 */
function drainsWith(openRunsByBuild: Record<string, number>, mine = 'new') {
  const made: Array<ReturnType<typeof fakeWorker>> = [];
  const madeCurrent: string[] = [];
  let current = 'new';
  const service = {
    describeWorkerDeployment: async () => ({
      workerDeploymentInfo: {
        routingConfig: { currentDeploymentVersion: { buildId: current } },
        versionSummaries: Object.keys(openRunsByBuild).map((buildId, i) => ({
          deploymentVersion: { buildId },
          createTime: msToTs(Date.parse('2026-11-01T00:00:00Z') + i * 60_000),
        })),
      },
    }),
    setWorkerDeploymentCurrentVersion: async ({ buildId }: { buildId: string }) => {
      madeCurrent.push(buildId);
      current = buildId;
      return {};
    },
    countWorkflowExecutions: async ({ query }: { query: string }) => {
      const build = Object.keys(openRunsByBuild).find((b) => query.includes(`:${b}`));
      return { count: openRunsByBuild[build ?? ''] ?? 0 };
    },
  };
  const pool = {
    query: async () => ({ rows: [{ code_gzip: gzipSync('old code') }] }),
  } as unknown as pg.Pool;
  const drains = buildDrains({
    workflowService: service as unknown as BuildDrainsOptions['workflowService'],
    namespace: 'default',
    deployment: 'orders',
    buildId: mine,
    pool,
    createWorker: async () => {
      const w = fakeWorker();
      made.push(w);
      return w as unknown as Worker;
    },
    log: { info: () => undefined, error: () => undefined },
  });
  return { drains, made, madeCurrent, openRunsByBuild };
}

describe('build drains', () => {
  it('serve an older build while it has open runs, and stop its worker once they close', async () => {
    const { drains, made, openRunsByBuild } = drainsWith({ new: 3, old: 2 });
    const first = await drains.refresh();
    assert.deepEqual(
      first.map((b) => [b.buildId, b.servedBy, b.openRuns]),
      [
        ['new', 'this-worker', 3],
        ['old', 'drain', 2],
      ],
    );
    assert.equal(made.length, 1);
    openRunsByBuild.old = 0;
    const second = await drains.refresh();
    assert.equal(second.find((b) => b.buildId === 'old')?.servedBy, 'none');
    assert.equal(made[0].getState(), 'STOPPED');
  });

  it('stop cleanly when SIGTERM already stopped the drain workers', async () => {
    const { drains, made } = drainsWith({ new: 1, old: 4 });
    await drains.refresh();
    made[0].stopBySignal();
    await drains.stop();
  });

  it('make a new build current, but not an older build that came back', async () => {
    const newer = drainsWith({ new: 0, newest: 0 }, 'newest');
    assert.equal(await newer.drains.makeCurrent(), true);
    assert.deepEqual(newer.madeCurrent, ['newest']);

    const older = drainsWith({ old: 3, new: 5 }, 'old');
    assert.equal(await older.drains.makeCurrent(), false);
    assert.deepEqual(older.madeCurrent, [], 'new runs stay on the current build');
    const report = await older.drains.refresh();
    assert.deepEqual(
      report.map((b) => [b.buildId, b.servedBy]),
      [
        ['old', 'this-worker'],
        ['new', 'its-workers'],
      ],
    );
    assert.equal(older.made.length, 0, 'no drain worker for the current build');
  });
});
