// Generated workflow bodies for the run's property test (test/unit/workflows/run-model.test.ts):
// sequences, steps at once, fan-outs, a branch on a result, caught business failures, loops
// over items (long and look-alike item IDs among them), sleeps and loops of sleeps, approvals
// by signal or by update, children, large payloads, and a claim of the engine's or in a step.
// What happens to the run from outside (faults, cancels, operators, restarts, deploys,
// resets) is plan.ts's. Everything is a function of the seed.
import { createPrng } from '../../../src/util/prng';
import { sha256Hex } from '../../../src/util/sha256';
import { planOf, type Plan } from './plan';

/** A node of a generated body. Every step name appears once in a body. */
export type Node =
  | { t: 'step'; name: string }
  | { t: 'each'; name: string; items: string[] }
  /** One call per item, all at once. */
  | { t: 'fan'; name: string; items: number }
  | { t: 'seq'; body: Node[] }
  | { t: 'all'; branches: Node[] }
  | { t: 'try'; body: Node; fallback: Node }
  | { t: 'if'; name: string; then: Node; else: Node }
  | { t: 'sleep'; ms: number }
  /** `n` sleeps of `ms` in a row (a poll loop). */
  | { t: 'loop'; n: number; ms: number }
  | { t: 'approval'; name: string; ms: number; via: 'signal' | 'update' }
  | { t: 'child'; name: string }
  /** Children one after another (a fan-out of workflows). */
  | { t: 'children'; name: string; n: number; parallel: boolean };

export interface StepDecl {
  name: string;
  undo: boolean;
  /** Bytes of padding in its input and in its result (large payloads). */
  pad?: number;
  resultPad?: number;
}

/** A generated case: the body, its steps, its children, its claim, and its plan. */
export interface Case extends Plan {
  seed: number;
  heavy: boolean;
  body: Node;
  steps: StepDecl[];
  /** Children by name: whether each declares an undo. */
  children: Array<{ name: string; undo: boolean }>;
  /** The step that claims in its own transaction (else the engine claims first). */
  claimStep?: string;
  /** A heavy case's push to one of Temporal's limits. */
  pressure?: Pressure;
}

/** A random integer in [0, n). */
export type Rand = (n: number) => number;

export function randOf(seed: number): Rand {
  const next = createPrng(seed);
  return (n) => Math.floor(next() * n);
}

/** Two item IDs whose keys collide while stepKey hashes long items without marking them. */
function lookAlikes(r: Rand): string[] {
  const long = `line-${'l'.repeat(70 + r(10))}`;
  return [long, `~${sha256Hex(long).slice(0, 32)}`];
}

/** The pressure a heavy case puts on Temporal's limits (one each). */
const PRESSURES = [
  'sleeps',
  'children',
  'stream',
  'bytes',
  'blob',
  'grpc',
  'budget',
  'fanout',
] as const;
export type Pressure = (typeof PRESSURES)[number];

export function generateCase(seed: number, heavy = false): Case {
  const r = randOf(seed);
  const steps: StepDecl[] = [];
  const children: Case['children'] = [];
  let names = 0;
  const fresh = (prefix: string) => `${prefix}${names++}`;
  const step = (undo = r(3) > 0, extra: Partial<StepDecl> = {}): string => {
    const name = fresh('s');
    steps.push({ name, undo, ...extra, ...(r(12) === 0 ? { pad: 10_000 + r(40_000) } : {}) });
    return name;
  };
  const stepNode = (): Node => {
    const roll = r(10);
    if (roll === 0) {
      const items = Array.from({ length: 1 + r(3) }, (_, i) => `item-${i}`);
      return { t: 'each', name: step(), items: r(6) === 0 ? [...items, ...lookAlikes(r)] : items };
    }
    if (roll === 1) return { t: 'fan', name: step(), items: 2 + r(5) };
    return { t: 'step', name: step() };
  };
  const node = (depth: number): Node => {
    const roll = depth > 2 ? r(3) : r(15);
    if (roll < 3) return stepNode();
    if (roll < 5)
      return { t: 'seq', body: Array.from({ length: 2 + r(2) }, () => node(depth + 1)) };
    if (roll < 7)
      return { t: 'all', branches: Array.from({ length: 2 + r(2) }, () => node(depth + 1)) };
    if (roll < 8) return { t: 'try', body: node(depth + 1), fallback: node(depth + 1) };
    if (roll < 9)
      return { t: 'if', name: step(r(2) > 0), then: node(depth + 1), else: node(depth + 1) };
    if (roll < 10) return { t: 'sleep', ms: 1000 * (1 + r(60)) };
    if (roll < 11) return { t: 'loop', n: 2 + r(20), ms: 60_000 };
    if (roll < 12)
      return {
        t: 'approval',
        name: fresh('ok'),
        ms: 60_000 * (1 + r(60)),
        via: r(2) ? 'signal' : 'update',
      };
    const name = fresh('kid');
    children.push({ name, undo: r(3) === 0 });
    return { t: 'child', name };
  };
  const body: Node = { t: 'seq', body: Array.from({ length: 2 + r(3) }, () => node(0)) };
  const kind = heavy ? PRESSURES[r(PRESSURES.length)] : undefined;
  const pressure = kind ? { kind, ...pressureNode(kind, r, step, fresh, children) } : undefined;
  // The pressure first: what comes after it in the body is what a run at the limit goes on to.
  if (pressure) body.body.unshift(pressure.node);
  const claimStep = !heavy && r(5) === 0 ? firstStepOf(body, r) : undefined;
  return {
    seed,
    heavy,
    body,
    steps,
    children,
    ...(claimStep ? { claimStep } : {}),
    ...(kind ? { pressure: kind } : {}),
    ...planOf(seed, body, heavy, pressure),
  };
}

/** The node that pushes a heavy case to one of Temporal's limits, and its step or children. */
function pressureNode(
  p: Pressure,
  r: Rand,
  step: (undo?: boolean, extra?: Partial<StepDecl>) => string,
  fresh: (prefix: string) => string,
  children: Case['children'],
): { node: Node; step?: string; kids?: string } {
  const loop = (n: number): Node => ({ t: 'loop', n, ms: 60_000 });
  switch (p) {
    case 'sleeps':
      return { node: loop(10_000 + r(3_000)) };
    case 'children': {
      const kids = fresh('kids');
      children.push({ name: kids, undo: false });
      // One after another past the event limit, or at once past the pending-children limit.
      const parallel = r(2) === 0;
      const n = parallel ? 2_001 + r(400) : 1_500 + r(500);
      return {
        node: {
          t: 'seq',
          body: [loop(8_000 + r(1_000)), { t: 'children', name: kids, n, parallel }],
        },
        kids,
      };
    }
    case 'stream': {
      const name = step(true);
      return { node: { t: 'seq', body: [loop(7_500 + r(500)), { t: 'step', name }] }, step: name };
    }
    case 'bytes': {
      const name = step(true, { pad: 40_000 + r(10_000), resultPad: 40_000 + r(10_000) });
      const items = Array.from({ length: 550 + r(150) }, (_, i) => `parcel-${i}`);
      return { node: { t: 'each', name, items }, step: name };
    }
    case 'blob': {
      const name = step(true, { pad: 2_100_000 + r(900_000) });
      return { node: { t: 'step', name }, step: name };
    }
    case 'grpc': {
      const name = step(true, { pad: 1_200_000 + r(600_000) });
      return { node: { t: 'fan', name, items: 3 + r(2) }, step: name };
    }
    case 'budget': {
      const name = step(true);
      return {
        node: { t: 'seq', body: [loop(5_700 + r(200)), { t: 'fan', name, items: 40 + r(60) }] },
        step: name,
      };
    }
    case 'fanout': {
      const name = step(true);
      return { node: { t: 'fan', name, items: 900 + r(1_300) }, step: name };
    }
  }
}

/** A step of the body to be the claiming one: the first, or one anywhere (steps beside it). */
function firstStepOf(body: Node, r: Rand): string | undefined {
  const names: string[] = [];
  const visit = (n: Node): void => {
    if (n.t === 'step' || n.t === 'if') names.push(n.name);
    if (n.t === 'seq') n.body.forEach(visit);
    if (n.t === 'all') n.branches.forEach(visit);
    if (n.t === 'try') [n.body, n.fallback].forEach(visit);
    if (n.t === 'if') [n.then, n.else].forEach(visit);
  };
  visit(body);
  if (names.length === 0) return undefined;
  return r(2) === 0 ? names[0] : names[r(names.length)];
}

/** Every node of a body, depth first. */
export function nodesOf(body: Node): Node[] {
  const out: Node[] = [];
  const visit = (n: Node): void => {
    out.push(n);
    if (n.t === 'seq') n.body.forEach(visit);
    if (n.t === 'all') n.branches.forEach(visit);
    if (n.t === 'try') [n.body, n.fallback].forEach(visit);
    if (n.t === 'if') [n.then, n.else].forEach(visit);
  };
  visit(body);
  return out;
}
