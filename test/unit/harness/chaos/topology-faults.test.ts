import { strict as assert } from 'node:assert';
import { buildSchedule } from '../../../../harness/chaos/schedule';
import {
  BROKER_DEAD_MS,
  buildTopologySchedule,
  ISR_SHORTFALL_MS,
  javaStringHash,
  offsetsPartitionOf,
  withKafka,
} from '../../../../harness/chaos/topology-faults';

const THREE = { temporal: 'server', kafkaBrokers: 3 } as const;

describe('chaos topology faults', () => {
  it('adds nothing on the single broker, whichever Temporal', () => {
    assert.deepEqual(buildTopologySchedule(19, 120_000, { temporal: 'dev', kafkaBrokers: 1 }), []);
    assert.deepEqual(
      buildTopologySchedule(19, 120_000, { temporal: 'server', kafkaBrokers: 1 }),
      [],
    );
  });

  it('kills the coordinator broker before the full Kafka restart, and two brokers while events are published', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const durationMs = 120_000;
      const s = buildTopologySchedule(seed, durationMs, THREE);
      assert.deepEqual(
        s.map((f) => f.kind),
        ['broker-kill', 'isr-shortfall'],
        `seed ${seed}`,
      );
      const [kill, shortfall] = s as [(typeof s)[0], (typeof s)[0]];
      assert.equal(kill.target, 'coordinator');
      assert.ok(kill.forMs >= BROKER_DEAD_MS.min && kill.forMs <= BROKER_DEAD_MS.max);
      const restart = buildSchedule(seed, durationMs).find((f) => f.kind === 'kafka-restart')!;
      assert.ok(kill.atMs < restart.atMs, `seed ${seed}: broker kill after the Kafka restart`);
      // Two distinct brokers of 1..3, so exactly one in-sync replica is left.
      const downed = shortfall.target.split(',');
      assert.equal(new Set(downed).size, 2, `seed ${seed}: ${shortfall.target}`);
      for (const d of downed) assert.match(d, /^kafka-[123]$/);
      assert.ok(shortfall.atMs < durationMs * 0.6, 'while the stream is still published');
      assert.ok(shortfall.forMs >= ISR_SHORTFALL_MS.min && shortfall.forMs <= ISR_SHORTFALL_MS.max);
    }
  });

  it('is the same for the same seed, and leaves the base schedule of the seed as it was', () => {
    assert.deepEqual(
      buildTopologySchedule(19, 600_000, THREE),
      buildTopologySchedule(19, 600_000, THREE),
    );
    const targets = new Set(
      Array.from({ length: 30 }, (_, i) => buildTopologySchedule(i + 1, 600_000, THREE)[1]!.target),
    );
    assert.ok(targets.size > 1, 'the surviving broker varies with the seed');
    assert.deepEqual(buildSchedule(19, 600_000), buildSchedule(19, 600_000));
  });

  it("finds a group's offsets partition as Kafka does (Java String.hashCode, Utils.abs)", () => {
    // Values of Java's "...".hashCode().
    assert.equal(javaStringHash(''), 0);
    assert.equal(javaStringHash('a'), 97);
    assert.equal(javaStringHash('hello'), 99162322);
    assert.equal(javaStringHash('chaos_group_bridge'), 137097128);
    assert.equal(javaStringHash('demo_bridge_group'), -465778907);
    assert.equal(javaStringHash('polygenelubricants'), -2147483648);
    assert.equal(offsetsPartitionOf('hello', 10), 2);
    assert.equal(offsetsPartitionOf('chaos_group_bridge', 10), 8);
    assert.equal(offsetsPartitionOf('demo_bridge_group', 10), 7, 'abs, not a bit mask');
    assert.equal(offsetsPartitionOf('polygenelubricants', 10), 0, 'Integer.MIN_VALUE maps to 0');
  });

  it('runs Kafka faults one at a time, even when one fails', async () => {
    const events: string[] = [];
    const fault = (name: string, fail = false) =>
      withKafka(async () => {
        events.push(`${name} start`);
        await new Promise((r) => setImmediate(r));
        events.push(`${name} end`);
        if (fail) throw new Error(name);
      });
    const results = await Promise.allSettled([fault('a', true), fault('b'), fault('c')]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'fulfilled', 'fulfilled'],
    );
    assert.deepEqual(events, ['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
  });
});
