// The providers of a generated case: every key remembers its effect (idempotent, as a
// provider keyed by Idempotency-Key is), fails as the case's plan says, and records every
// attempt with the intent it carried (its step, item and input) and its place among the
// run's activations; the claim store answers with the plan's verdict; children run with
// the ends the plan gives them.
import {
  ApplicationFailure,
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
  TimeoutType,
} from '@temporalio/common';
import type { ActivityCall, ChildCall } from '../../../src/workflows/saga-runtime';
import { stepKey } from '../../../src/workflows/step-key';
import { businessError, outage, permanent, type AttemptInfo } from '../emulator/runtime';
import { DECLINED, OWNER } from './body';
import type { Case } from './generate';
import { faultOf, faultRand, type Fault } from './plan';

/** The transient window and interval a generated provider's outage carries (virtual ms). */
export const WINDOW_MS = 60_000;
export const INTERVAL_MS = 1000;
export const ENTITY = 'm-1';
export const keyOf = (name: string, item?: string) => stepKey('model', ENTITY, name, item);

export interface KeyRecord {
  /** Every intent sent under the key (step, item and input): one, or a key was reused. */
  intents: Set<string>;
  /**
   * The intents sent before the chain's first reset, after it, …: a reset's run sends again
   * what the run it reset sent after the reset point.
   */
  byReset: Map<number, Set<string>>;
  attempts: number;
  applied: boolean;
  /** An operator's retry cleared a permanent fault. */
  cleared: boolean;
  activity: string;
  /** The input of its first attempt (an undo's carries the result it undoes). */
  input: Record<string, unknown>;
}

/** The result a key's effect answers with (the body branches on `v`). */
export function valueOf(key: string): { v: number } {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) >>> 0;
  return { v: h % 7 };
}

/** An intent as the judge compares them: the step (not its activity), the item, the input. */
function intentOf(input: Record<string, unknown>): string {
  const { key: _key, pad, ...rest } = input;
  return JSON.stringify({ ...rest, pad: typeof pad === 'string' ? pad.length : undefined });
}

/**
 * A case's providers. `order`: an attempt's place among the activations; `resets`: the chain's
 * resets so far; `window`: the outage window and interval their transient failures carry
 * (default WINDOW_MS and INTERVAL_MS; the differential test runs in real time with shorter ones).
 * @example createProvider(c, () => s.log.length, { window: { windowMs: 11_000, intervalMs: 1000 } })
 */
export function createProvider(
  c: Case,
  order: () => number,
  options: { resets?: () => number; window?: { windowMs: number; intervalMs: number } } = {},
) {
  const resets = options.resets ?? (() => 0);
  const window = options.window ?? { windowMs: WINDOW_MS, intervalMs: INTERVAL_MS };
  const keys = new Map<string, KeyRecord>();
  /** Every attempt of a forward call or an undo, with its place among the activations. */
  const attempts: Array<{ key: string; activity: string; order: number }> = [];
  /** Every settlement: what it said, and whose claim it settled. */
  const settlements: Array<{ settled: string; workflowId?: string }> = [];
  /** Children that ran to completion. */
  const childrenDone = new Set<string>();
  let settleAttempts = 0;
  const claimKey = c.claimStep ? keyOf(c.claimStep) : undefined;

  const answer = (call: ActivityCall, _info: AttemptInfo): unknown => {
    const input = call.input as Record<string, unknown> & { key: string; settled?: string };
    if (call.activity === 'claimEntity')
      return c.verdict === 'owner'
        ? { kind: 'owner', claim: {} }
        : {
            kind: c.verdict,
            claim: {
              ...OWNER,
              ...(c.verdict === 'conflict' ? { fingerprint: 'e'.repeat(64) } : {}),
            },
          };
    if (call.activity === 'claimCancelled') {
      if (c.verdict !== 'owner') return { kind: c.verdict, claim: OWNER };
      const committed = claimKey !== undefined && keys.get(claimKey)?.applied;
      return {
        kind: 'owner',
        claim: {
          workflowId: 'wf-1',
          runId: 'run-1',
          fingerprint: 'f'.repeat(64),
          claimedAt: 'x',
          ...(committed ? {} : { settled: 'cancelled', settledAt: 'x' }),
        },
      };
    }
    if (call.activity === 'findClaimVerdict') {
      // An operator resolved the claiming step: the claim says who owns the entity, if anyone.
      if (c.verdict !== 'owner') return { kind: c.verdict, claim: OWNER };
      return claimKey !== undefined && keys.get(claimKey)?.applied
        ? { kind: 'owner', claim: {} }
        : { kind: 'none' };
    }
    if (call.activity === 'settleClaim' || call.activity === 'settle') {
      // Our database fails over under some settlements: they wait like a provider outage.
      settleAttempts++;
      if (settleAttempts <= c.settleOutage) throw outage(window.windowMs, window.intervalMs);
      settlements.push({
        settled: input.settled!,
        workflowId: input.workflowId as string | undefined,
      });
      return { settled: true };
    }
    const rec: KeyRecord = keys.get(input.key) ?? {
      intents: new Set(),
      byReset: new Map(),
      attempts: 0,
      applied: false,
      cleared: false,
      activity: call.activity,
      input,
    };
    keys.set(input.key, rec);
    rec.intents.add(intentOf(input));
    rec.byReset.set(resets(), (rec.byReset.get(resets()) ?? new Set()).add(intentOf(input)));
    rec.attempts++;
    attempts.push({ key: input.key, activity: call.activity, order: order() });
    const undo = call.activity === 'undo';
    const step = c.steps.find((s) => s.name === input.name);
    const result = () => ({
      ...valueOf(input.key),
      ...(input.key === claimKey && c.verdict !== 'owner' ? { verdict: c.verdict } : {}),
      ...(step?.resultPad && !undo ? { pad: 'y'.repeat(step.resultPad) } : {}),
    });
    const apply = () => {
      // A claiming step that finds another owner does nothing of its own.
      if (!(input.key === claimKey && c.verdict !== 'owner')) rec.applied = true;
      return result();
    };
    const fault: Fault =
      (!undo && c.forced[input.name as string]) || faultOf(c.seed, input.key, undo);
    switch (fault.f) {
      case 'ok':
        return apply();
      case 'decline':
        throw businessError(DECLINED);
      case 'outage':
        if (rec.attempts <= fault.attempts) throw outage(window.windowMs, window.intervalMs);
        return apply();
      case 'lost':
        apply();
        if (rec.attempts === 1) throw outage(window.windowMs, window.intervalMs);
        return result();
      case 'permanent':
        if (!rec.cleared) throw permanent();
        return apply();
    }
  };

  /** A child runs to the end its plan gives it. */
  const child = (call: ChildCall): unknown => {
    const name = call.workflowId.slice(call.workflowId.lastIndexOf('/') + 1);
    const end = c.childEnds[name] ?? c.childEnds[name.replace(/-\d+$/, '')] ?? 'ok';
    if (end === 'failed')
      throw ApplicationFailure.create({ type: 'KidFailed', message: 'the child failed' });
    if (end === 'terminated') throw new TerminatedFailure('terminated by an operator');
    if (end === 'timedOut')
      throw new TimeoutFailure('run timed out', undefined, TimeoutType.START_TO_CLOSE);
    if (end === 'canceled') throw new CancelledFailure('cancelled by an operator');
    childrenDone.add(name);
    return {};
  };
  const childMs = (call: ChildCall) => faultRand(call.workflowId.length * 7 + c.seed)(3) * 1000;
  /** Children terminated or timed out as the parent saw them (their work may exist). */
  const childrenActed = new Set<string>();
  return { answer, child, childMs, keys, attempts, settlements, childrenDone, childrenActed };
}

export type Provider = ReturnType<typeof createProvider>;
