// What happens to a generated run from outside its body: how each key's provider behaves, the
// claim's verdict, when a cancellation arrives, how approvers and operators answer (resolves
// with a result, streams of retries while parked), children's ends, and what the worker and
// Temporal do to the run (restarts, a deploy of changed code and its rollback, a reset, tasks
// that take time). A function of the seed and the body.
import { createPrng } from '../../../src/util/prng';
import type { Node, Pressure } from './generate';

/** How a key's provider answers: its faults, by attempt. */
export type Fault =
  | { f: 'ok' }
  | { f: 'decline' }
  /** Transient for this many attempts (Infinity: never answers within the window). */
  | { f: 'outage'; attempts: number }
  /** The first attempt applies the effect but its answer is lost (a transient failure). */
  | { f: 'lost' }
  /** A permanent failure until an operator's retry clears it. */
  | { f: 'permanent' };

export type ChildEnd = 'ok' | 'failed' | 'terminated' | 'timedOut' | 'canceled';

export interface Plan {
  /** The claim's verdict: this run owns the entity, or another run does. */
  verdict: 'owner' | 'duplicate' | 'conflict';
  /** The owner's run is gone (a signal to it fails) and its claim unsettled. */
  ownerGone: boolean;
  /** When (virtual ms after start) Temporal's or the signal's cancellation arrives, if at all. */
  cancelAt?: number;
  cancelBy?: 'temporal' | 'signal';
  /** Signal approvals sent before their wait begins (the rest time out). */
  approved: string[];
  /** Update approvals: sent valid, refused by the validator first, or never sent. */
  updates: Record<string, 'valid' | 'invalid-first' | 'never'>;
  childEnds: Record<string, ChildEnd>;
  /** Worker restarts, at these virtual times after start. */
  restarts: number[];
  /** A deploy of changed code at this time (an activity's type, or a later step's input), rolled back after. */
  deploy?: { at: number; change: 'activity' | 'input' };
  /** Temporal's reset of the run at this time, to the last task or an earlier one. */
  reset?: { at: number; back: number };
  /** How operators answer a park: at random, or by cancelling the run. */
  operator: 'random' | 'cancel';
  /** Retries an operator sends at once (or a minute apart) for a parked step. */
  stream: { n: number; spacedMs: number };
  /** Steps (every item's call) forced to a fault: the pressure's, so it pushes to its limit. */
  forced: Record<string, Fault>;
  /** Workflow tasks take virtual time (what arrives meanwhile is batched, and counted). */
  latency: boolean;
  /** How many of the run's settlement attempts meet our database failing over. */
  settleOutage: number;
}

export function faultRand(seed: number): (n: number) => number {
  const next = createPrng(seed);
  return (n) => Math.floor(next() * n);
}

/** The fault of one key: a pure function of the case's seed and the key. */
export function faultOf(seed: number, key: string, undo: boolean): Fault {
  let h = seed >>> 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619) >>> 0;
  const r = faultRand(h);
  const roll = r(100);
  if (undo) {
    // An undo never declines; it may wait, lose its answer, or park for an operator.
    if (roll < 75) return { f: 'ok' };
    if (roll < 88) return { f: 'outage', attempts: 1 + r(8) };
    if (roll < 95) return { f: 'lost' };
    return { f: 'permanent' };
  }
  if (roll < 74) return { f: 'ok' };
  if (roll < 80) return { f: 'decline' };
  if (roll < 92) return { f: 'outage', attempts: r(4) === 0 ? Infinity : 1 + r(12) };
  if (roll < 97) return { f: 'lost' };
  return { f: 'permanent' };
}

export function planOf(
  seed: number,
  body: Node,
  heavy: boolean,
  pressure?: { kind: Pressure; step?: string; kids?: string },
): Plan {
  const r = faultRand(seed * 17 + 3);
  const names = { approvals: [] as Array<{ name: string; via: string }>, kids: [] as string[] };
  const visit = (n: Node): void => {
    if (n.t === 'approval') names.approvals.push({ name: n.name, via: n.via });
    if (n.t === 'child' || n.t === 'children') names.kids.push(n.name);
    if (n.t === 'seq') n.body.forEach(visit);
    if (n.t === 'all') n.branches.forEach(visit);
    if (n.t === 'try') [n.body, n.fallback].forEach(visit);
    if (n.t === 'if') [n.then, n.else].forEach(visit);
  };
  visit(body);
  const verdictRoll = heavy ? 99 : r(100);
  const verdict = verdictRoll < 8 ? 'duplicate' : verdictRoll < 12 ? 'conflict' : 'owner';
  const cancel = !heavy && r(4) === 0;
  const ends: ChildEnd[] = ['ok', 'ok', 'ok', 'ok', 'failed', 'terminated', 'timedOut', 'canceled'];
  return {
    verdict,
    ownerGone: r(2) === 0,
    ...(cancel
      ? { cancelAt: r(3) === 0 ? 0 : r(200_000), cancelBy: r(2) ? 'temporal' : 'signal' }
      : {}),
    approved: names.approvals.filter((a) => a.via === 'signal' && r(2) > 0).map((a) => a.name),
    updates: Object.fromEntries(
      names.approvals
        .filter((a) => a.via === 'update')
        .map((a) => [a.name, (['valid', 'invalid-first', 'never'] as const)[r(3)]!]),
    ),
    childEnds: Object.fromEntries(
      names.kids.map((k) => [k, k === pressure?.kids ? 'ok' : ends[r(ends.length)]!]),
    ),
    restarts: heavy ? [] : Array.from({ length: r(3) }, () => r(300_000)),
    ...(!heavy && r(8) === 0
      ? { deploy: { at: r(200_000), change: r(2) ? 'activity' : 'input' } }
      : {}),
    ...(!heavy && r(10) === 0 ? { reset: { at: r(300_000), back: r(3) } } : {}),
    operator: pressure?.kind === 'budget' ? 'cancel' : 'random',
    stream:
      pressure?.kind === 'stream'
        ? { n: 3_000 + r(1_000), spacedMs: 60_000 }
        : { n: r(6) === 0 ? 2 + r(30) : 1, spacedMs: r(2) ? 0 : 60_000 },
    forced: pressure?.step
      ? { [pressure.step]: pressure.kind === 'stream' ? { f: 'permanent' } : { f: 'ok' } }
      : {},
    latency: r(3) === 0 || pressure?.kind === 'fanout',
    settleOutage: r(3) === 0 ? r(40) : 0,
  };
}
