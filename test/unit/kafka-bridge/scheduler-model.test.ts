import { strict as assert } from 'node:assert';
import { createPrng } from '../../../src/util/prng';
import { OpenRuns } from '../../../src/kafka-bridge/open-runs';
import {
  ReadAheadWindow,
  type StartClass,
  type WindowEntry,
  type WindowLimits,
} from '../../../src/kafka-bridge/read-ahead-window';
import { StartQueue } from '../../../src/kafka-bridge/start-queue';

/**
 * The scheduler's pure parts (read-ahead windows, the start queue, open-run caps) driven by a
 * seeded random world: partitions whose logs hold keys of several tenants and both classes,
 * fetches of random size while a window is below its high mark, starts completing in random
 * order, runs closing at random, commits at random moments, and rebalances that discard a
 * partition's window (its starts in flight abandoned) and re-read it from the committed offset.
 * SCHEDULER_SEED replays one case (SCHEDULER_CASES=1); a failure prints its seed.
 */
const CASES = Number(process.env.SCHEDULER_CASES ?? 300);
const BASE = Number(process.env.SCHEDULER_SEED ?? Math.floor(Math.random() * 1e9));

interface Rec {
  offset: number;
  group: string;
  tenant: string;
  cls: StartClass;
  bytes: number;
  identity: string;
}

interface Item {
  partition: number;
  rec: Rec;
}

function generateLog(rand: () => number, partition: number, length: number, tenants: string[]) {
  const keys = 1 + Math.floor(rand() * 12);
  return Array.from({ length }, (_, offset): Rec => {
    const key = Math.floor(rand() * keys);
    // A key belongs to one tenant, as an aggregate does.
    const tenant = tenants[key % tenants.length]!;
    return {
      offset,
      group: `p${partition}-k${key}`,
      tenant,
      cls: rand() < 0.2 ? 'background' : 'live',
      bytes: 1 + Math.floor(rand() * 400),
      identity: `p${partition}-${offset}`,
    };
  });
}

/** One random world, run to its end; throws (assert) at the first broken property. */
function runCase(seed: number): void {
  const rand = createPrng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const tenants = ['a', 'b', 'c', ''].slice(0, 1 + int(4));
  const weights = new Map(tenants.map((t) => [t, 0.5 + int(4)]));
  const partitions = 1 + int(4);
  const logs = Array.from({ length: partitions }, (_, p) =>
    generateLog(rand, p, 20 + int(200), tenants),
  );
  const limits: WindowLimits = { records: 4 + int(40), bytes: 400 + int(8000) };
  const maxBatch = 1 + int(30);
  const concurrency = 1 + int(8);
  const caps = { total: int(3) * 8, perTenant: int(3) * 4, background: int(3) * 3 };
  let seq = 0;
  const nextSeq = () => seq++;
  const queue = new StartQueue<WindowEntry<Item>>((t) => weights.get(t) ?? 1);
  const open = new OpenRuns(caps);
  const started = new Map<string, number>(); // identity → runs (workflow ID = identity)
  const openRuns: string[] = [];
  const handled = logs.map(() => new Set<number>());
  const committed = logs.map(() => 0);
  interface PartitionState {
    window: ReadAheadWindow<Item>;
    fetchedTo: number;
    paused: boolean;
    lastStarted: Map<string, number>;
  }
  const state: PartitionState[] = logs.map((_, p) => fresh(p));
  function fresh(p: number): PartitionState {
    return {
      window: new ReadAheadWindow<Item>(`t\u0000${p}`, nextSeq),
      fetchedTo: committed[p]!,
      paused: false,
      lastStarted: new Map(),
    };
  }
  const inFlight: Array<WindowEntry<Item>> = [];
  const newRuns = new Map<WindowEntry<Item>, string>();

  const fetch = (p: number) => {
    const s = state[p]!;
    const log = logs[p]!;
    if (s.paused || s.fetchedTo >= log.length) return;
    const batch = log.slice(s.fetchedTo, s.fetchedTo + 1 + int(maxBatch));
    s.fetchedTo += batch.length;
    for (const e of s.window.append(
      batch.map((rec) => ({ ...rec, offset: BigInt(rec.offset), item: { partition: p, rec } })),
      BigInt(s.fetchedTo),
    ))
      if (e.state === 'ready') queue.add(e);
    assert.ok(
      s.window.records < limits.records + maxBatch,
      `window of p${p} holds ${s.window.records} records (limit ${limits.records})`,
    );
    assert.ok(s.window.bytes < limits.bytes + maxBatch * 401, `window of p${p} bytes`);
    if (s.window.pressure(limits) === 'full') s.paused = true;
  };

  const startSome = () => {
    while (inFlight.length < concurrency) {
      const liveWaiting = [...state].some((s) =>
        [...s.window.unhandled()].some(
          (e) => e.state === 'ready' && e.cls === 'live' && open.admits(e.tenant, 'live'),
        ),
      );
      const e = queue.pick((t, cls) => open.admits(t, cls));
      if (!e) return;
      if (e.window.isClosed) continue; // a lost partition's entry, left in the queue
      assert.ok(!(e.cls === 'background' && liveWaiting), 'a live record waited behind a replay');
      const s = state[e.item!.partition]!;
      const last = s.lastStarted.get(e.group);
      assert.ok(last === undefined || last < Number(e.offset), `${e.group} out of order`);
      s.lastStarted.set(e.group, Number(e.offset));
      e.window.take(e);
      inFlight.push(e);
      open.reserve(e.tenant, e.cls);
      const id = e.item!.rec.identity;
      // The run starts now (workflow ID = identity: a second start of it is a duplicate); it
      // counts as a start in flight until its step ends, then as an open run.
      if (!started.has(id)) {
        started.set(id, 1);
        newRuns.set(e, id);
      }
      assert.ok(caps.total === 0 || open.total <= caps.total, 'total cap passed');
      assert.ok(caps.perTenant === 0 || open.ofTenant(e.tenant) <= caps.perTenant, 'tenant cap');
      assert.ok(caps.background === 0 || open.backgroundRuns <= caps.background, 'bg cap');
      const groupsInFlight = inFlight.filter((x) => x.window === e.window && x.group === e.group);
      assert.equal(groupsInFlight.length, 1, `two of ${e.group} in flight`);
    }
  };

  const complete = () => {
    if (inFlight.length === 0) return;
    const [e] = inFlight.splice(int(inFlight.length), 1);
    const run = newRuns.get(e!);
    newRuns.delete(e!);
    open.settle(e!.tenant, e!.cls, run);
    if (run) openRuns.push(run);
    if (e!.window.isClosed) return; // abandoned: its start happened, its partition did not see it
    handled[e!.item!.partition]!.add(Number(e!.offset));
    const next = e!.window.complete(e!);
    if (next) queue.add(next);
  };

  const commit = (p: number) => {
    const offset = state[p]!.window.commitOffset();
    if (offset === undefined) return;
    for (let o = committed[p]!; o < Number(offset); o++)
      assert.ok(handled[p]!.has(o), `p${p} committed ${offset} past unhandled ${o}`);
    assert.ok(Number(offset) >= committed[p]!, 'the committed offset went back');
    committed[p] = Number(offset);
    for (const b of state[p]!.window.handledBeyond())
      assert.ok(handled[p]!.has(Number(b)), 'metadata names an unhandled offset');
  };

  const rebalance = (p: number) => {
    const s = state[p]!;
    s.window.close();
    queue.removeWhere((e) => e.window === s.window);
    state[p] = fresh(p);
  };

  for (let step = 0; step < 20_000; step++) {
    const r = rand();
    const p = int(partitions);
    if (r < 0.3) fetch(p);
    else if (r < 0.6) complete();
    else if (r < 0.7 && openRuns.length > 0)
      open.noteClosed(openRuns.splice(int(openRuns.length), 1)[0]!);
    else if (r < 0.8) commit(p);
    else if (r < 0.803) rebalance(p);
    for (const s of state)
      if (s.paused && s.window.pressure(limits) === 'drained') s.paused = false;
    startSome();
    if (committed.every((c, i) => c === logs[i]!.length) && inFlight.length === 0) break;
  }
  // The world goes quiet: runs close, everything left is started and committed.
  for (let guard = 0; guard < 100_000; guard++) {
    while (openRuns.length > 0) open.noteClosed(openRuns.pop()!);
    for (let p = 0; p < partitions; p++) {
      if (state[p]!.paused && state[p]!.window.pressure(limits) !== 'full')
        state[p]!.paused = false;
      fetch(p);
    }
    startSome();
    complete();
    for (let p = 0; p < partitions; p++) commit(p);
    if (committed.every((c, i) => c === logs[i]!.length) && inFlight.length === 0) break;
  }
  for (let p = 0; p < partitions; p++) {
    assert.equal(committed[p], logs[p]!.length, `p${p}: committed to the end`);
    for (const rec of logs[p]!) assert.ok(started.has(rec.identity), `${rec.identity} lost`);
  }
  for (const [id, runs] of started) assert.equal(runs, 1, `${id}: one run`);
  while (openRuns.length > 0) open.noteClosed(openRuns.pop()!);
  assert.equal(open.total, 0, 'every run closed: nothing counts as open');
  for (const t of tenants) assert.equal(open.ofTenant(t), 0, `tenant ${t}: nothing open`);
}

describe('scheduler model (read-ahead windows, start queue, open-run caps)', function () {
  this.timeout(120_000);

  it(`per-key order, live first, caps, bounded windows, committed never past an unhandled record, nothing lost (${CASES} seeded worlds)`, () => {
    for (let i = 0; i < CASES; i++) {
      const seed = BASE + i;
      try {
        runCase(seed);
      } catch (err) {
        throw new Error(`SCHEDULER_SEED=${seed} SCHEDULER_CASES=1: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
  });
});

describe('start queue: weighted turns between tenants', () => {
  it(`gives each busy tenant its weight's share: starts/weight of two tenants never differ by more than 1/w₁ + 1/w₂ (${CASES} seeded cases)`, () => {
    for (let i = 0; i < CASES; i++) {
      const seed = BASE + i;
      const rand = createPrng(seed);
      const tenants = Array.from({ length: 2 + Math.floor(rand() * 5) }, (_, t) => `t${t}`);
      const weights = new Map(tenants.map((t) => [t, 0.25 + Math.floor(rand() * 16) / 4]));
      const w = (t: string) => weights.get(t)!;
      const queue = new StartQueue<{ seq: number; cls: StartClass; tenant: string }>(w);
      let seq = 0;
      // Every tenant always has something ready: a flood of distinct keys each.
      const ready = new Map(tenants.map((t) => [t, 0]));
      const top = () => {
        for (const t of tenants)
          while (ready.get(t)! < 3) {
            queue.add({ seq: seq++, cls: 'live', tenant: t });
            ready.set(t, ready.get(t)! + 1);
          }
      };
      const got = new Map(tenants.map((t) => [t, 0]));
      top();
      for (let n = 0; n < 2000; n++) {
        const e = queue.pick()!;
        ready.set(e.tenant, ready.get(e.tenant)! - 1);
        got.set(e.tenant, got.get(e.tenant)! + 1);
        for (const a of tenants)
          for (const b of tenants) {
            const gap = got.get(a)! / w(a) - got.get(b)! / w(b);
            assert.ok(
              gap <= 1 / w(a) + 1 / w(b) + 1e-9,
              `SCHEDULER_SEED=${seed} SCHEDULER_CASES=1: after ${n + 1} starts ${a} (weight ${w(a)}) has ${got.get(a)}, ${b} (weight ${w(b)}) ${got.get(b)}`,
            );
          }
        top();
      }
    }
  });

  it('a tenant that was idle comes back at once, ahead of a flood, with no credit saved up', () => {
    const queue = new StartQueue<{ seq: number; cls: StartClass; tenant: string }>(() => 1);
    let seq = 0;
    for (let i = 0; i < 100; i++) queue.add({ seq: seq++, cls: 'live', tenant: 'flood' });
    for (let i = 0; i < 50; i++) assert.equal(queue.pick()!.tenant, 'flood');
    queue.add({ seq: seq++, cls: 'live', tenant: 'quiet' });
    assert.equal(queue.pick()!.tenant, 'quiet', 'the quiet tenant goes next, not after the flood');
    queue.add({ seq: seq++, cls: 'live', tenant: 'quiet' });
    queue.add({ seq: seq, cls: 'live', tenant: 'quiet' });
    const next = Array.from({ length: 4 }, () => queue.pick()!.tenant);
    // Turns, not a run of the quiet tenant's records: its idle time saved it no credit.
    assert.deepEqual(next, ['flood', 'quiet', 'flood', 'quiet']);
  });

  it('live before background, and a capped tenant waits while the others go', () => {
    const queue = new StartQueue<{ seq: number; cls: StartClass; tenant: string }>(() => 1);
    queue.add({ seq: 0, cls: 'background', tenant: 'a' });
    queue.add({ seq: 1, cls: 'live', tenant: 'a' });
    queue.add({ seq: 2, cls: 'live', tenant: 'b' });
    const capped = (t: string) => t !== 'a';
    assert.equal(queue.pick(capped)!.seq, 2, "b's live record; a is at its cap");
    assert.equal(queue.pick(capped), undefined, "a's records wait for its runs to close");
    assert.equal(queue.pick()!.seq, 1, 'once admitted: live first');
    assert.equal(queue.pick()!.seq, 0);
  });
});
