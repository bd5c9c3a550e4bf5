import { strict as assert } from 'node:assert';
import {
  decodeCommitMetadata,
  encodeCommitMetadata,
  MAX_METADATA_CHARS,
} from '../../../src/kafka-bridge/commit-metadata';
import { PartitionFlow } from '../../../src/kafka-bridge/partition-flow';
import { PartitionPauses } from '../../../src/kafka-bridge/partition-pauses';
import { OpenRuns } from '../../../src/kafka-bridge/open-runs';

describe('commit metadata: the records handled beyond the committed offset', () => {
  it('round-trips, for the very offset committed only', () => {
    const text = encodeCommitMetadata(100n, [101n, 105n, 9000n]);
    assert.ok(text?.startsWith('onceflow:1:'));
    assert.deepEqual([...decodeCommitMetadata(100n, text)], [101n, 105n, 9000n]);
    assert.equal(decodeCommitMetadata(99n, text).size, 0, 'written for another offset');
    assert.equal(encodeCommitMetadata(100n, []), null);
  });

  it("names nothing for another client's metadata or a damaged one", () => {
    for (const other of [
      null,
      '',
      'hello',
      'onceflow:1:2s:',
      'onceflow:1:2s:0',
      'onceflow:1:2s:1,-1',
    ])
      assert.equal(decodeCommitMetadata(100n, other).size, 0, JSON.stringify(other));
  });

  it(`stays within ${MAX_METADATA_CHARS} characters, leaving out what does not fit`, () => {
    const many = Array.from({ length: 100_000 }, (_, i) => 10_000n + BigInt(i) * 997n);
    const text = encodeCommitMetadata(0n, many)!;
    assert.ok(text.length <= MAX_METADATA_CHARS, `${text.length} characters`);
    const back = [...decodeCommitMetadata(0n, text)];
    assert.deepEqual(back, many.slice(0, back.length), 'a prefix of the offsets, exact');
    assert.ok(back.length > 100);
  });
});

describe('PartitionFlow: a partition paused while any reason holds', () => {
  it('a window draining does not resume a partition that waits on its environment, nor the reverse', () => {
    const calls: string[] = [];
    const consumer = {
      pause: (t: Array<{ topic: string; partitions?: number[] }>) =>
        calls.push(`pause ${t[0]!.partitions}`),
      resume: (t: Array<{ topic: string; partitions?: number[] }>) =>
        calls.push(`resume ${t[0]!.partitions}`),
    };
    const flow = new PartitionFlow(consumer);
    const pauses = new PartitionPauses();
    flow.pause('window', 'orders', 0);
    const hold = pauses.hold(flow.control('environment'), 'orders', 0, {
      dependency: 'temporal',
      fault: 'unavailable',
    });
    flow.resume('window', 'orders', 0);
    assert.deepEqual(calls, ['pause 0', 'pause 0'], 'still waiting on Temporal: not resumed');
    hold.release();
    assert.deepEqual(calls, ['pause 0', 'pause 0', 'resume 0']);
  });

  it('a partition held by two waits is resumed once both end; the gauge shows it once', () => {
    const pauses = new PartitionPauses(() => 1000);
    const consumer = { pause: () => undefined, resume: () => undefined };
    const a = pauses.hold(consumer, 'orders', 1, { dependency: 'postgres', fault: 'unavailable' });
    const b = pauses.hold(consumer, 'orders', 1, { dependency: 'temporal', fault: 'slow' });
    assert.equal(pauses.list().length, 1);
    assert.equal(pauses.list()[0]!.dependency, 'temporal', 'the latest reason');
    a.release();
    assert.ok(pauses.isHeld('orders', 1));
    b.release();
    assert.ok(!pauses.isHeld('orders', 1));
  });
});

describe('OpenRuns: admission against the caps', () => {
  it('counts a tenant, a class and the total; a close frees them; runs open at start count in the total only', () => {
    const runs = new OpenRuns({ total: 3, perTenant: 2, background: 1 });
    runs.seedUnattributed(1);
    runs.noteStarted('w1', 'a', 'live');
    assert.ok(runs.admits('a', 'live'));
    runs.noteStarted('w2', 'a', 'live');
    assert.ok(!runs.admits('a', 'live'), 'a is at its cap');
    assert.ok(!runs.admits('b', 'live'), 'the total is at its cap (one run open before start)');
    assert.equal(runs.noteClosed('old', true), true, 'a run open at start closed');
    assert.equal(runs.noteClosed('old', true), false, 'listed twice, counted once');
    assert.ok(runs.admits('b', 'background'));
    runs.noteStarted('w3', 'b', 'background');
    assert.ok(!runs.admits('c', 'background'));
    runs.noteClosed('w3');
    runs.noteClosed('w1');
    assert.ok(runs.admits('a', 'live'));
    assert.equal(runs.total, 1);
  });

  it('stops counting a run after the horizon (it waits rather than works), and the runs open at start with it', () => {
    let now = 0;
    const runs = new OpenRuns({ total: 10, perTenant: 1, background: 0 }, 120_000, () => now);
    runs.seedUnattributed(5);
    runs.noteStarted('w1', 'a', 'live');
    assert.ok(!runs.admits('a', 'live'));
    now = 119_000;
    assert.equal(runs.expire(), false);
    now = 120_000;
    assert.equal(runs.expire(), true);
    assert.ok(runs.admits('a', 'live'));
    assert.equal(runs.total, 0, 'the runs open at start no longer count either');
    assert.equal(runs.noteClosed('w1'), false, 'its close, listed later, changes nothing');
  });
});
