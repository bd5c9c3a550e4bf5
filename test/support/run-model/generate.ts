// Generated workflow bodies and fault plans for the run's property test
// (test/unit/workflows/run-model.test.ts): sequences, steps at once, a branch on a result,
// caught business failures, loops over items, sleeps, approvals and children, and for every
// key how its provider behaves. Everything is a function of the seed.
import { createPrng } from '../../../src/util/prng';

/** A node of a generated body. Every step name appears once in a body. */
export type Node =
  | { t: 'step'; name: string }
  | { t: 'each'; name: string; items: string[] }
  | { t: 'seq'; body: Node[] }
  | { t: 'all'; branches: Node[] }
  | { t: 'try'; body: Node; fallback: Node }
  | { t: 'if'; name: string; then: Node; else: Node }
  | { t: 'sleep'; ms: number }
  | { t: 'approval'; name: string; ms: number }
  | { t: 'child'; name: string };

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

/** One generated case: the body, its steps (and which have an undo), its injections. */
export interface Case {
  seed: number;
  body: Node;
  steps: Array<{ name: string; undo: boolean }>;
  /** When (virtual ms after start) Temporal's or the signal's cancellation arrives, if at all. */
  cancelAt?: number;
  cancelBy?: 'temporal' | 'signal';
  /** Approvals answered before their wait begins (the rest time out). */
  approved: string[];
  /** Children that fail. */
  failingChildren: string[];
  /** Worker restarts: replay the log up to these deliveries and compare. */
  restarts: number[];
}

/** A random integer in [0, n). */
export type Rand = (n: number) => number;

export function randOf(seed: number): Rand {
  const next = createPrng(seed);
  return (n) => Math.floor(next() * n);
}

/** The fault of one key: a pure function of the case's seed and the key. */
export function faultOf(seed: number, key: string, undo: boolean): Fault {
  let h = seed >>> 0;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619) >>> 0;
  const r = randOf(h);
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

/** A generated case. */
export function generateCase(seed: number): Case {
  const r = randOf(seed);
  const steps: Case['steps'] = [];
  let names = 0;
  const fresh = (prefix: string) => `${prefix}${names++}`;
  const stepNode = (): Node => {
    const name = fresh('s');
    steps.push({ name, undo: r(3) > 0 });
    return r(5) === 0
      ? { t: 'each', name, items: Array.from({ length: 1 + r(3) }, (_, i) => `item-${i}`) }
      : { t: 'step', name };
  };
  const node = (depth: number): Node => {
    const roll = depth > 2 ? r(3) : r(12);
    if (roll < 3) return stepNode();
    if (roll < 5)
      return { t: 'seq', body: Array.from({ length: 2 + r(2) }, () => node(depth + 1)) };
    if (roll < 7)
      return { t: 'all', branches: Array.from({ length: 2 + r(2) }, () => node(depth + 1)) };
    if (roll < 8) return { t: 'try', body: node(depth + 1), fallback: node(depth + 1) };
    if (roll < 9) {
      const name = fresh('s');
      steps.push({ name, undo: r(2) > 0 });
      return { t: 'if', name, then: node(depth + 1), else: node(depth + 1) };
    }
    if (roll < 10) return { t: 'sleep', ms: 1000 * (1 + r(60)) };
    if (roll < 11) return { t: 'approval', name: fresh('ok'), ms: 60_000 * (1 + r(60)) };
    return { t: 'child', name: fresh('kid') };
  };
  const body: Node = { t: 'seq', body: Array.from({ length: 2 + r(3) }, () => node(0)) };
  const approvals: string[] = [];
  const children: string[] = [];
  const visit = (n: Node): void => {
    if (n.t === 'approval') approvals.push(n.name);
    if (n.t === 'child') children.push(n.name);
    if (n.t === 'seq') n.body.forEach(visit);
    if (n.t === 'all') n.branches.forEach(visit);
    if (n.t === 'try') [n.body, n.fallback].forEach(visit);
    if (n.t === 'if') [n.then, n.else].forEach(visit);
  };
  visit(body);
  const cancel = r(4) === 0;
  return {
    seed,
    body,
    steps,
    ...(cancel
      ? { cancelAt: r(3) === 0 ? 0 : r(200_000), cancelBy: r(2) ? 'temporal' : 'signal' }
      : {}),
    approved: approvals.filter(() => r(2) > 0),
    failingChildren: children.filter(() => r(5) === 0),
    restarts: Array.from({ length: 1 + r(2) }, () => 1 + r(40)),
  };
}
