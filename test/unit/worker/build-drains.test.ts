import { strict as assert } from 'node:assert';
import type { Worker } from '@temporalio/worker';
import { waitFor } from '../../../src/util/wait';
import { codeOf, drainsOf, fakeDeployment, fakeWorker, idOf, servedBy } from './deployment-fakes';

const NAMES = ['old', 'older', 'oldest', 'new', 'newer'];
const served = (report: ReadonlyArray<{ buildId: string; servedBy: string }>) =>
  servedBy(report, NAMES);

describe('build drains', () => {
  it('serve an older build while it has open runs, and stop its worker once they close', async () => {
    const deployment = fakeDeployment(
      { old: { runs: 2, activated: true }, new: { runs: 3 } },
      'new',
    );
    const { drains, made, logged } = drainsOf(deployment, 'new');
    const first = await drains.refresh();
    assert.deepEqual(served(first), [
      ['old', 'drain'],
      ['new', 'this-worker'],
    ]);
    assert.deepEqual(
      made.map((m) => m.buildId),
      [idOf('old')],
    );
    deployment.raw.countWorkflowExecutions = async () => ({ count: 0 });
    const second = await drains.refresh();
    assert.equal(second.find((b) => b.buildId === idOf('old'))?.servedBy, 'none');
    assert.equal(made[0]!.worker.getState(), 'STOPPED');
    assert.ok(logged.includes('build drained: its worker stopped'), logged.join('\n'));
  });

  it('stop cleanly when SIGTERM already stopped the drain workers', async () => {
    const { drains, made } = drainsOf(
      fakeDeployment({ old: { runs: 4 }, new: { runs: 1 } }, 'new'),
      'new',
    );
    await drains.refresh();
    made[0]!.worker.stopBySignal();
    await drains.stop();
  });

  it('refuse stored code that is not its build: tampered, or built with another SDK; no worker runs it', async () => {
    const deployment = fakeDeployment(
      { oldest: { runs: 1 }, older: { runs: 2 }, new: { runs: 0 } },
      'new',
      { oldest: `${codeOf('oldest')}\nscheduleActivity('refund', { key: 'mine' });` },
    );
    deployment.builtWith('older', '0.0.1');
    const { drains, made, logged } = drainsOf(deployment, 'new');
    const report = await drains.refresh();
    assert.deepEqual(served(report), [
      ['oldest', 'refused'],
      ['older', 'refused'],
      ['new', 'this-worker'],
    ]);
    assert.deepEqual(
      report.map((b) => b.refused?.kind),
      ['tampered', 'other-sdk', undefined],
    );
    assert.match(report[0]!.refused!.reason, /hashes to [0-9a-f]{64}, not to its build ID/);
    assert.match(report[1]!.refused!.reason, /built with @temporalio\/workflow 0\.0\.1/);
    assert.equal(made.length, 0, 'no drain worker for refused code');
    await drains.refresh();
    assert.equal(logged.filter((l) => l.includes('is refused')).length, 2, 'said once per build');
  });

  it('report the build whose code nobody stored as missing', async () => {
    const deployment = fakeDeployment({ old: { runs: 2 }, new: { runs: 0 } }, 'new');
    deployment.forget('old');
    const { drains, made } = drainsOf(deployment, 'new');
    assert.deepEqual(served(await drains.refresh()), [
      ['old', 'missing'],
      ['new', 'this-worker'],
    ]);
    assert.equal(made.length, 0);
  });

  it('serve at most WORKER_MAX_DRAINS builds, the current one first, then the most runs; others wait their turn', async () => {
    const deployment = fakeDeployment(
      { oldest: { runs: 1 }, older: { runs: 5 }, old: { runs: 3 }, new: { runs: 0 } },
      'old',
    );
    const { drains, made } = drainsOf(deployment, 'new', { maxDrains: 2 });
    assert.deepEqual(served(await drains.refresh()), [
      ['oldest', 'waiting-turn'],
      ['older', 'drain'],
      ['old', 'drain'],
      ['new', 'this-worker'],
    ]);
    assert.equal(made.length, 2);
    const none = drainsOf(deployment, 'new', { maxDrains: 0 });
    assert.deepEqual(
      served(await none.drains.refresh()).map(([, by]) => by),
      ['its-workers', 'its-workers', 'its-workers', 'this-worker'],
    );
    assert.equal(none.made.length, 0);
  });

  it('start one drain for two overlapping refreshes, and none after stop()', async () => {
    const deployment = fakeDeployment({ old: { runs: 2 }, new: { runs: 1 } }, 'new');
    let release: () => void = () => undefined;
    const slow = new Promise<void>((r) => (release = r));
    const made: Array<ReturnType<typeof fakeWorker>> = [];
    const createWorker = async () => {
      await slow;
      const w = fakeWorker();
      made.push(w);
      return w as unknown as Worker;
    };
    const { drains } = drainsOf(deployment, 'new', { createWorker });
    const [a, b] = [drains.refresh(), drains.refresh()];
    release();
    await Promise.all([a, b]);
    assert.equal(made.length, 1, 'one drain worker for one build');

    // A stop while a drain worker is being made (SIGTERM during createWorker).
    const late = drainsOf(deployment, 'new', {
      createWorker: async () => {
        stopping = late.drains.stop();
        const w = fakeWorker();
        made.push(w);
        return w as unknown as Worker;
      },
    });
    let stopping: Promise<void> | undefined;
    await late.drains.refresh();
    await stopping;
    assert.equal(made.at(-1)!.getState(), 'STOPPED', 'the drain made during stop() was stopped');
    assert.deepEqual(await late.drains.refresh(), [], 'no refresh after stop()');
  });

  it('report another code stored under its own build ID (planted before it ran)', async () => {
    const deployment = fakeDeployment({ old: { runs: 0 }, new: { runs: 0 } }, 'old', {
      new: `${codeOf('new')}\n// planted`,
    });
    const { drains, logged } = drainsOf(deployment, 'new', { makeCurrent: 'never' });
    await drains.start();
    const mine = await waitFor(
      async () => (await drains.refresh()).find((b) => b.buildId === idOf('new') && b.refused),
      { timeoutMs: 5_000, what: 'the planted row reported' },
    );
    assert.equal(mine.servedBy, 'this-worker');
    assert.equal(mine.refused?.kind, 'tampered');
    assert.ok(logged.some((l) => l.startsWith("another code is stored under this build's ID")));
    await drains.stop();
  });
});
