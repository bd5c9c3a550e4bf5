import { strict as assert } from 'node:assert';
import { BuildNotCurrentError } from '../../../src/worker/build-current';
import { drainsOf, fakeDeployment, idOf, servedBy } from './deployment-fakes';

/** A gRPC failure as the worker's native connection reports one. */
const grpcError = (code: number, message: string) =>
  Object.assign(new Error(message), { code, details: message, metadata: {} });

describe('which build is current', () => {
  it('a new build becomes current; an older build that came back does not', async () => {
    const newer = fakeDeployment({ new: { runs: 0 }, newest: { runs: 0 } }, 'new');
    assert.equal(await drainsOf(newer, 'newest').drains.makeCurrent(), true);
    assert.deepEqual(newer.state.madeCurrent, ['newest']);

    const older = fakeDeployment({ old: { runs: 3, activated: true }, new: { runs: 5 } }, 'new');
    const { drains, made } = drainsOf(older, 'old');
    assert.equal(await drains.makeCurrent(), false);
    assert.deepEqual(older.state.madeCurrent, [], 'new runs stay on the current build');
    // It serves its own runs, and the current build from its stored code too (a process of
    // an older build may be the only one left, after a rollback).
    assert.deepEqual(servedBy(await drains.refresh(), ['old', 'new']), [
      ['old', 'this-worker'],
      ['new', 'drain'],
    ]);
    assert.equal(made.length, 1);
  });

  it("a rolled-back build restarted does not undo the operator's rollback", async () => {
    // B2 was current; the operator set B1 current again; a B2 worker restarts.
    const rolledBack = fakeDeployment(
      { b1: { runs: 2, activated: true }, b2: { runs: 4, activated: true } },
      'b1',
    );
    assert.equal(await drainsOf(rolledBack, 'b2').drains.makeCurrent(), false);
    assert.deepEqual(rolledBack.state.madeCurrent, []);
    // A build registered but never current, older than the current one, stays out too.
    const aborted = fakeDeployment({ b2: { runs: 0 }, b3: { runs: 0 } }, 'b3');
    assert.equal(await drainsOf(aborted, 'b2').drains.makeCurrent(), false);
  });

  it('WORKER_MAKE_CURRENT=never leaves it to the deploy; always makes it current every start', async () => {
    const fresh = fakeDeployment({ old: { runs: 0 }, new: { runs: 0 } }, 'old');
    assert.equal(
      await drainsOf(fresh, 'new', { makeCurrent: 'never' }).drains.makeCurrent(),
      false,
    );
    assert.deepEqual(fresh.state.madeCurrent, []);
    const rolledBack = fakeDeployment({ b1: { runs: 0 }, b2: { runs: 0, activated: true } }, 'b1');
    assert.equal(
      await drainsOf(rolledBack, 'b2', { makeCurrent: 'always' }).drains.makeCurrent(),
      true,
    );
    assert.deepEqual(rolledBack.state.madeCurrent, ['b2']);
  });

  it('waits out transient Temporal errors, then fails naming what it waited for', async () => {
    const flaky = fakeDeployment({ old: { runs: 0 }, new: { runs: 0 } }, 'old');
    const set = flaky.raw.setWorkerDeploymentCurrentVersion;
    let failures = 2;
    flaky.raw.setWorkerDeploymentCurrentVersion = async (req) => {
      if (failures-- > 0) throw grpcError(14, 'UNAVAILABLE: the service is currently unavailable');
      return set(req);
    };
    const { drains, logged } = drainsOf(flaky, 'new');
    assert.equal(await drains.makeCurrent(), true);
    assert.equal(logged.filter((l) => l.includes('retrying')).length, 2);

    const down = fakeDeployment({ old: { runs: 0 }, new: { runs: 0 } }, 'old');
    down.raw.setWorkerDeploymentCurrentVersion = async () => {
      throw grpcError(14, 'UNAVAILABLE: the service is currently unavailable');
    };
    const waited = drainsOf(down, 'new', { makeCurrentWaitMs: 500 }).drains.makeCurrent();
    await assert.rejects(waited, (err: BuildNotCurrentError) => {
      assert.ok(err instanceof BuildNotCurrentError);
      assert.match(
        err.message,
        new RegExp(`waiting for build ${idOf('new')} to be made current: UNAVAILABLE`),
      );
      return true;
    });

    const refused = fakeDeployment({ old: { runs: 0 }, new: { runs: 0 } }, 'old');
    refused.raw.setWorkerDeploymentCurrentVersion = async () => {
      throw grpcError(7, 'PERMISSION_DENIED: not the deployment manager');
    };
    const started = Date.now();
    await assert.rejects(
      drainsOf(refused, 'new').drains.makeCurrent(),
      /code 7: PERMISSION_DENIED/,
    );
    assert.ok(Date.now() - started < 1_000, 'a refusal is not retried');
  });
});
