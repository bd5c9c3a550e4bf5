// The generated cases of the differential test (test/integration/workflows/differential.test.ts):
// the property test's bodies and fault plans (run-model/generate.ts), with their times scaled
// from minutes to seconds so a run on the real server ends in seconds, and the cases left out
// because their outcome depends on a wall-clock race rather than on the engine.
//
// Left out, and why (a filter drops the case; a field set aside runs the case without it):
// - heavy cases (pressures on Temporal's limits): minutes of history on the server. Never
//   drawn (generateCase's default).
// - a cancel at a virtual time after the start (`cancelAt > 0`): where it lands among the
//   run's calls is a race of wall-clock time on the server and of virtual time in the
//   emulator; a cancel before the start (`cancelAt === 0`) is kept: it is in the run's first
//   workflow task on both sides.
// - worker restarts, a deploy, a reset (`restarts`, `deploy`, `reset`): they happen at a
//   virtual time, which on the server is a race with the run. Set aside.
// - the claim's settlement meeting a database outage (`settleOutage`): the real side settles
//   in the real Postgres (database-failover.test.ts covers its outage). Set aside.
// - a claim verdict other than owner, and a step's own claim (`verdict`, `claimStep`): the
//   real side's claims are the real Postgres's, where a fresh entity is always owned and the
//   engine's check of a resolved claiming step reads the table, not the provider. Filtered.
// - a child that ends terminated, timed out or cancelled (`childEnds`): on the server that
//   takes an operator or a timeout acting on the child while the parent waits. Filtered.
// - an approval by update sent (`updates` valid or invalid-first): it must arrive while its
//   wait is open, before a deadline of seconds: a race of the driver against the server's
//   timer. Filtered; an update never sent (the wait times out) is kept.
// - an operator's stream of retries, resolves with a result (`stream`, run-case.ts's
//   operator): the operator here is operator.ts's, one move per park. Set aside.
// - a child started beside other branches (inside `all`): the emulator answers a child at
//   once, the server in a few hundred ms (its own workflow tasks), and the emulator's variants
//   cannot vary that; whether a sibling's next step starts before the child's end is a race.
// - cases whose observables differ between emulator runs with other delivery orders and
//   attempt times (emulate.ts variants): steps at once that race each other, a sibling's
//   failure against the next step of another branch. Such a case has no one right answer.
// - cases the emulator says take longer than MAX_CASE_MS (MAX_PARKED_MS when the operator
//   answers a park: a park comes after an outage's whole window, so such cases are long and
//   would otherwise never be drawn): the whole test must stay short.
import { generateCase, type Case, type Node } from '../run-model/generate';
import type { ChildEnd } from '../run-model/plan';

/**
 * The outage window and interval of the differential cases' providers (ms, both sides). The
 * interval is a second because the dev server retries an activity no sooner than about a
 * second after its failure whatever its retry policy says (a 250 ms interval measured ~1 s
 * apart, the fast round's 0.5 s backoff ~1 s): a shorter one would be a difference of the
 * server's clock, not of the engine. The window holds the longest finite outage (12 attempts:
 * four in the fast round, nine in the waiting round, 8 s) with 3 s to spare.
 */
export const DIFF_WINDOW = { windowMs: 11_000, intervalMs: 1000 };

/** The longest case (virtual ms in the emulator) the sample takes. */
export const MAX_CASE_MS = 30_000;
/** The longest case the sample takes when an operator answers a park in it. */
export const MAX_PARKED_MS = 60_000;

/** A case as the differential test runs it: its entity (keys name it) and its workflow ID. */
export interface DiffCase {
  case: Case;
  entityId: string;
  workflowId: string;
}

/**
 * A sleep of 1 s to 60 s lasts 1 s to 3 s here, an approval's deadline of 1 min to 60 min too.
 * Never shorter than a second: the dev server fires a shorter timer after about a second
 * (measured: 50 ms to 900 ms all fired at 0.95 s to 1.3 s, 1.1 s and longer within a few ms),
 * and an approval sent just after the start must arrive before its deadline.
 */
const scaleSleep = (ms: number) => 1000 + Math.round(ms / 30);
const scaleApproval = (ms: number) => 1000 + Math.round(ms / 1800);
/** A poll loop's minute lasts 1.1 s: twenty of them stay within MAX_CASE_MS. */
const scaleLoop = (ms: number) => 1000 + Math.round(ms / 600);

/** The children's ends the real side can give without acting on a child from outside. */
const SERVER_ENDS: ReadonlySet<ChildEnd> = new Set(['ok', 'failed']);

/** Whether a child is started beside other branches (inside `all`, at any depth). */
function childBeside(n: Node, inAll = false): boolean {
  switch (n.t) {
    case 'child':
      return inAll;
    case 'seq':
      return n.body.some((b) => childBeside(b, inAll));
    case 'all':
      return n.branches.some((b) => childBeside(b, true));
    case 'try':
      return childBeside(n.body, inAll) || childBeside(n.fallback, inAll);
    case 'if':
      return childBeside(n.then, inAll) || childBeside(n.else, inAll);
    default:
      return false;
  }
}

function scaled(n: Node): Node {
  switch (n.t) {
    case 'sleep':
      return { ...n, ms: scaleSleep(n.ms) };
    case 'loop':
      return { ...n, ms: scaleLoop(n.ms) };
    case 'approval':
      return { ...n, ms: scaleApproval(n.ms) };
    case 'seq':
      return { ...n, body: n.body.map(scaled) };
    case 'all':
      return { ...n, branches: n.branches.map(scaled) };
    case 'try':
      return { ...n, body: scaled(n.body), fallback: scaled(n.fallback) };
    case 'if':
      return { ...n, then: scaled(n.then), else: scaled(n.else) };
    default:
      return n;
  }
}

/** The seed's case with its times in seconds, or why it is left out. */
export function differentialCase(seed: number): Case | { excluded: string } {
  const c = generateCase(seed);
  if (c.cancelAt !== undefined && c.cancelAt > 0) return { excluded: 'a cancel at a virtual time' };
  if (c.verdict !== 'owner' || c.claimStep) return { excluded: 'a claim not the engine owns' };
  if (Object.values(c.childEnds).some((e) => !SERVER_ENDS.has(e)))
    return { excluded: 'a child ended from outside' };
  if (Object.values(c.updates).some((u) => u !== 'never'))
    return { excluded: 'an approval by update' };
  if (childBeside(c.body)) return { excluded: 'a child beside other branches' };
  const { deploy: _deploy, reset: _reset, ...rest } = c;
  return {
    ...rest,
    body: scaled(c.body),
    restarts: [],
    settleOutage: 0,
    stream: { n: 1, spacedMs: 0 },
  };
}

/**
 * How a case is cancelled before its start, if it is: a cancel signal that arrives with the
 * start, or Temporal's cancel requested before the run's first workflow task.
 */
export function cancelBeforeStart(c: Case): 'signal' | 'temporal' | undefined {
  return c.cancelAt === 0 ? (c.cancelBy ?? 'signal') : undefined;
}

/** The entity of a seed's case: keys, and so the provider's faults, are a function of the seed. */
export const entityOf = (seed: number) => `d${seed}`;

/** The workflow ID prefix of a case: a child reads its parent's seed from it (workflows.ts). */
export const workflowIdPrefix = (seed: number) => `diff-${seed}-`;

/** The seed in a workflow ID made from workflowIdPrefix (a child's ID starts with its parent's). */
export function seedOfWorkflowId(workflowId: string): number {
  const m = /^diff-(\d+)-/.exec(workflowId);
  if (!m) throw new Error(`workflow ID ${workflowId} names no differential case`);
  return Number(m[1]);
}
