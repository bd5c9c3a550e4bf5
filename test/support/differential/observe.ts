// What the differential test compares of one run, recorded the same way on both sides: the
// provider answers every call of the run (act, undo) with the case's fault plan by attempt
// number per key (run-model/provider.ts, one function on both sides), and remembers each
// distinct call (activity, key, input) and the order in which undos started.
import type { ActivityCall } from '../../../src/workflows/saga-runtime';
import type { RecoveryPoint, SagaStatus } from '../../../src/workflows/saga-status';
import type { AttemptInfo } from '../emulator/runtime';
import type { Case } from '../run-model/generate';
import { faultOf } from '../run-model/plan';
import { createProvider, type Provider } from '../run-model/provider';
import { DIFF_WINDOW } from './cases';

/** How a workflow execution closed, as Temporal names it. */
export type CloseStatus = 'Completed' | 'Failed' | 'Canceled';

/** One run as the test compares it. */
export interface Observed {
  /** Every distinct call the provider saw: `activity key input`, sorted. */
  calls: string[];
  /** The undos' keys in the order their first attempt reached the provider. */
  undos: string[];
  /**
   * Attempts per key, `key n`, sorted; `key many` for a key whose provider never answers
   * within the window (how often Temporal retries it in the window is a matter of the clock).
   */
  attempts: string[];
  /** status.keys: every step's and undo's key. */
  keys: Record<string, string>;
  /** Recovery points, `step how`, sorted. */
  recovery: string[];
  /** Each park the operator answered, in order: `step choice`. */
  parks: string[];
  outcome: string | undefined;
  reason: string | undefined;
  close: CloseStatus;
  /** What the claim was settled with, last. */
  settled: string | undefined;
}

/** A JSON text of `value` with object keys sorted (inputs compare by content, not key order). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** The provider of one case run, and what it saw. */
export interface Recorder {
  provider: Provider;
  /** Answers one attempt of act or undo, as the case's fault plan says. */
  answer(call: Pick<ActivityCall, 'activity' | 'input'>, info: AttemptInfo): unknown;
  calls: Set<string>;
  undos: string[];
  attempts: Map<string, number>;
}

export function createRecorder(c: Case): Recorder {
  const provider = createProvider(c, () => 0, { window: DIFF_WINDOW });
  const calls = new Set<string>();
  const undos: string[] = [];
  const attempts = new Map<string, number>();
  return {
    provider,
    calls,
    undos,
    attempts,
    answer: (call, info) => {
      const key = (call.input as { key: string }).key;
      attempts.set(key, (attempts.get(key) ?? 0) + 1);
      calls.add(`${call.activity} ${key} ${canonical(call.input)}`);
      if (call.activity === 'undo' && !undos.includes(key)) undos.push(key);
      return provider.answer(call as ActivityCall, info);
    },
  };
}

/** The part of Observed a run's final status and recorder give. */
export function observedOf(
  c: Case,
  rec: Recorder,
  status: SagaStatus,
  rest: Pick<Observed, 'parks' | 'close' | 'settled' | 'reason'>,
): Observed {
  return {
    calls: [...rec.calls].sort(),
    undos: [...rec.undos],
    attempts: [...rec.attempts]
      .map(([key, n]) => {
        const f = faultOf(c.seed, key, key.includes(':undo-'));
        return `${key} ${f.f === 'outage' && f.attempts === Infinity ? 'many' : n}`;
      })
      .sort(),
    keys: status.keys,
    recovery: status.recoveryPoints.map((p: RecoveryPoint) => `${p.step} ${p.how}`).sort(),
    outcome: status.outcome,
    ...rest,
  };
}

/** Fields that are sets: a difference names what only one side has. */
const SETS: ReadonlySet<keyof Observed> = new Set(['calls', 'attempts', 'recovery']);

/** Each field in which two runs differ, one line per side (empty: the same). */
export function differences(
  a: Observed,
  b: Observed,
  names: [string, string] = ['emulator', 'server'],
): string[] {
  const out: string[] = [];
  for (const field of Object.keys(a) as Array<keyof Observed>) {
    const x = canonical(a[field]);
    const y = canonical(b[field]);
    if (x === y) continue;
    const pad = ' '.repeat(field.length + 2);
    if (SETS.has(field)) {
      const [p, q] = [a[field] as string[], b[field] as string[]];
      out.push(
        `${field}: only the ${names[0]}'s: ${canonical(p.filter((e) => !q.includes(e)))}\n` +
          `${pad}only the ${names[1]}'s: ${canonical(q.filter((e) => !p.includes(e)))}`,
      );
    } else out.push(`${field}: ${names[0]} ${x}\n${pad}${names[1]} ${y}`);
  }
  return out;
}
