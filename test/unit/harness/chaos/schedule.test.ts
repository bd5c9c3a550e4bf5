import { strict as assert } from 'node:assert';
import {
  buildSchedule,
  KILL_EVERY_MS,
  PROVIDER_OUTAGE_MS,
  WORKER_COUNT,
  type ScheduledFault,
} from '../../../../harness/chaos/schedule';

const count = (s: ScheduledFault[], kind: string) => s.filter((f) => f.kind === kind).length;

describe('chaos fault schedule', () => {
  it('is the same for the same seed and differs for another', () => {
    assert.deepEqual(buildSchedule(7, 120_000), buildSchedule(7, 120_000));
    assert.notDeepEqual(buildSchedule(7, 120_000), buildSchedule(8, 120_000));
  });

  it('kills every worker and the bridge, restarts Kafka, Postgres and Temporal, deploys twice with a rollback between and lets time pass once, even when short', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const s = buildSchedule(seed, 60_000);
      const killed = new Set(s.filter((f) => f.kind.startsWith('kill-')).map((f) => f.target));
      assert.equal(killed.size, WORKER_COUNT + 1, `seed ${seed}: ${[...killed].join(', ')}`);
      assert.equal(count(s, 'kafka-restart'), 1);
      assert.equal(count(s, 'postgres-restart'), 1);
      assert.equal(count(s, 'temporal-restart'), 1);
      assert.equal(count(s, 'time-passes'), 1);
      const deploys = s.filter((f) => f.kind === 'deploy' || f.kind === 'rollback');
      assert.deepEqual(
        deploys.map((f) => `${f.kind} ${f.target}`),
        ['deploy release-1', 'rollback workers', 'deploy release-2'],
        `seed ${seed}`,
      );
      assert.ok(count(s, 'provider-outage') >= 1, `seed ${seed}: no provider outage`);
      const settings = s.flatMap((f) => Object.keys(f.faults ?? {}));
      for (const k of ['failBeforeCommitRate', 'timeoutAfterCommitRate', 'latencyMs'])
        assert.ok(settings.includes(k), `seed ${seed}: no ${k} window`);
    }
  });

  it('kills about once a minute in a long run, and more provider windows', () => {
    const long = buildSchedule(1, 20 * 60_000);
    const kills = count(long, 'kill-worker') + count(long, 'kill-bridge');
    assert.ok(kills >= (20 * 60_000 * 0.8) / KILL_EVERY_MS, `${kills} kills in 20 minutes`);
    assert.ok(count(long, 'provider-faults') >= 9, `${count(long, 'provider-faults')} windows`);
  });

  it('stops the providers for 30-120 s about every ten minutes, apart from the service restarts', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const s = buildSchedule(seed, 30 * 60_000);
      const outages = s.filter((f) => f.kind === 'provider-outage');
      assert.equal(outages.length, 3, `seed ${seed}`);
      for (const o of outages) {
        assert.equal(o.target, 'providers');
        assert.ok(
          o.forMs >= PROVIDER_OUTAGE_MS.min && o.forMs <= PROVIDER_OUTAGE_MS.max,
          `${o.forMs}`,
        );
      }
      const at = (kind: string) => s.find((f) => f.kind === kind)!.atMs;
      assert.ok(at('kafka-restart') < at('temporal-restart'), `seed ${seed}`);
      assert.ok(at('temporal-restart') < at('postgres-restart'), `seed ${seed}`);
      // Time passes mid-run, between the Temporal and the Postgres restarts.
      assert.ok(at('temporal-restart') < at('time-passes'), `seed ${seed}`);
      assert.ok(at('time-passes') <= at('postgres-restart'), `seed ${seed}`);
    }
  });

  it('never kills a process that is still down, and keeps every fault inside the run', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const durationMs = 10_000 + (seed - 1) * 30_000; // from the 10 s minimum
      const s = buildSchedule(seed, durationMs);
      const upAgainAt = new Map<string, number>();
      for (const f of s) {
        assert.ok(f.atMs >= 0 && f.atMs + f.forMs <= durationMs, `seed ${seed}: ${f.kind}`);
        if (!f.kind.startsWith('kill-')) continue;
        assert.ok(f.atMs > (upAgainAt.get(f.target) ?? -1), `seed ${seed}: ${f.target} twice`);
        upAgainAt.set(f.target, f.atMs + f.forMs);
      }
    }
  });
});
