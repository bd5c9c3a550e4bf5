import { strict as assert } from 'node:assert';
import { createPrng } from '../../../src/util/prng';
import type { BuildReport } from '../../../src/worker/build-report';
import { drainsOf, fakeDeployment, idOf, type FakeBuild } from './deployment-fakes';

/** The names of `names` a report says are served by a drain, and those waiting their turn. */
function turnsOf(report: readonly BuildReport[], names: readonly string[]) {
  const by = (servedBy: string) =>
    names.filter((n) => report.find((b) => b.buildId === idOf(n))?.servedBy === servedBy);
  return { drain: by('drain'), waiting: by('waiting-turn') };
}

/** Builds `names`, one open run each, and `new`: this worker's build, current. */
function olderBuilds(names: readonly string[]): Record<string, FakeBuild> {
  return { ...Object.fromEntries(names.map((n) => [n, { runs: 1 }])), new: { runs: 0 } };
}

describe('drains take turns when more builds hold runs than WORKER_MAX_DRAINS', () => {
  it('a drain with nothing to do, or that had its turn, gives its slot to a build with work waiting', async () => {
    const names = ['a', 'b', 'c'];
    const deployment = fakeDeployment(olderBuilds(names), 'new');
    deployment.state.backlog = {};
    const { drains, made, logged } = drainsOf(deployment, 'new', { maxDrains: 1 });
    const first = turnsOf(await drains.refresh(), names);
    assert.equal(first.drain.length, 1, 'the one slot is used though nobody has work');
    assert.equal(first.waiting.length, 2);
    const [idle, x, y] = [first.drain[0]!, first.waiting[0]!, first.waiting[1]!];

    // Work reaches the two others (a signal, a cancel, a timer): the idle drain gives way.
    deployment.state.backlog = { [x]: 1, [y]: 1 };
    const second = turnsOf(await drains.refresh(), names);
    assert.equal(second.drain.length, 1);
    assert.notEqual(second.drain[0], idle);
    assert.equal(made[0]!.worker.getState(), 'STOPPED');
    assert.ok(logged.includes('a drain gave its turn to a build with work waiting'));

    // The build served still has work, but it had its turn: the other one waiting takes it.
    const third = turnsOf(await drains.refresh(), names);
    assert.deepEqual(third.drain, [second.drain[0] === x ? y : x]);
    // Then back to the first, whose turn is older; the idle build waits, with nothing to do.
    const fourth = turnsOf(await drains.refresh(), names);
    assert.deepEqual(fourth.drain, second.drain);
    assert.equal(made.filter((m) => m.worker.getState() === 'RUNNING').length, 1);
    await drains.stop();
  });

  it('take turns one refresh each when the server says nothing of waiting tasks', async () => {
    const names = ['a', 'b', 'c'];
    const deployment = fakeDeployment(olderBuilds(names), 'new');
    deployment.state.backlog = undefined;
    const { drains } = drainsOf(deployment, 'new', { maxDrains: 1 });
    const served: string[] = [];
    for (let i = 0; i < 6; i++) served.push(...turnsOf(await drains.refresh(), names).drain);
    assert.equal(served.length, 6);
    assert.deepEqual(served.slice(3), served.slice(0, 3), 'round robin');
    assert.deepEqual([...served.slice(0, 3)].sort(), names);
    await drains.stop();
  });

  it('serve every build with work within (builds - 1) / slots refreshes of its wait, whatever arrives (seeded)', async () => {
    const names = ['b0', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6'];
    // `cur` is current and not this worker's: it keeps one of the 3 slots; 2 rotate.
    const bound = Math.floor((names.length - 1) / 2);
    // Work arrives on a build without a drain, and a drain's build stays busy, at these odds.
    for (const [seed, arrives, busy] of [
      [1, 0.4, 0.5],
      [7, 0.2, 0.9],
      [41, 0.9, 0.2],
      [5, 1, 1],
    ] as const) {
      const random = createPrng(seed);
      const deployment = fakeDeployment({ cur: { runs: 2 }, ...olderBuilds(names) }, 'cur');
      const backlog: Record<string, number> = {};
      deployment.state.backlog = backlog;
      const { drains } = drainsOf(deployment, 'new', { maxDrains: 3 });
      /** The refresh since which each build has had work and no drain. */
      const since = new Map<string, number>();
      let served = new Set<string>();
      let longest = 0;
      for (let r = 1; r <= 60; r++) {
        for (const n of names) {
          if (!served.has(n) && random() < arrives) backlog[n] = 1;
          if (!served.has(n) && backlog[n] && !since.has(n)) since.set(n, r);
        }
        const report = await drains.refresh();
        assert.equal(report.find((b) => b.buildId === idOf('cur'))?.servedBy, 'drain');
        served = new Set(turnsOf(report, names).drain);
        assert.equal(served.size, 2, `refresh ${r}: both rotating slots used`);
        for (const n of served) {
          // The drain takes the tasks that waited; more may come while it runs.
          if (since.has(n)) longest = Math.max(longest, r - since.get(n)!);
          since.delete(n);
          backlog[n] = random() < busy ? 1 : 0;
        }
        for (const [n, from] of since)
          assert.ok(r - from < bound, `seed ${seed}: ${n} has waited since refresh ${from}`);
      }
      assert.ok(longest <= bound, `seed ${seed}: waited ${longest} refreshes`);
      // Every build busy at once is the worst case: the bound is reached, not loose.
      if (arrives === 1 && busy === 1) assert.equal(longest, bound);
      await drains.stop();
    }
  });

  it('with one slot and another build current, older builds are at the drain limit, said once', async () => {
    const deployment = fakeDeployment({ cur: { runs: 1 }, ...olderBuilds(['a']) }, 'cur');
    const { drains, logged } = drainsOf(deployment, 'new', { maxDrains: 1 });
    for (let i = 0; i < 2; i++) {
      const report = await drains.refresh();
      assert.equal(report.find((b) => b.buildId === idOf('cur'))?.servedBy, 'drain');
      assert.equal(report.find((b) => b.buildId === idOf('a'))?.servedBy, 'drain-limit');
    }
    assert.equal(
      logged.filter((l) => l.startsWith('a build with open runs is served by no')).length,
      1,
    );
    await drains.stop();
  });
});
