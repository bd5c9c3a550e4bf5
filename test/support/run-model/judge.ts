// The model a generated run is judged against: what the body may do given the fault plan,
// and the invariants every run must keep whatever happened (docs/architecture.md, "A run's
// phases"): each key one intent; every effect of a run that did not complete undone exactly
// once; no forward call started after a cancellation was delivered; nothing undone for a run
// that completed; the claim settled with the outcome.
import { stepKey } from '../../../src/workflows/step-key';
import type { RecordedOperatorAction, RecoveryPoint } from '../../../src/workflows/saga-status';
import type { LogEntry } from '../emulator/runtime';
import { DECLINED_OUTCOME } from './body';
import { faultOf, type Case, type Node } from './generate';
import { valueOf, type Provider } from './provider';

export const ENTITY = 'm-1';
const keyOf = (name: string, item?: string) => stepKey('model', ENTITY, name, item);

/**
 * The outcomes the run may end with when nothing but the fault plan acts on it (no cancel, no
 * operator), or undefined when an operator must decide (a call parks). `completed` when the
 * body may return; a set when steps at once may fail first in either order.
 */
export function predictOutcomes(c: Case): Set<string> | undefined {
  if (c.cancelAt !== undefined) return undefined;
  const calls = (name: string, items: Array<string | undefined>): Set<string> | undefined => {
    for (const item of items) {
      const f = faultOf(c.seed, keyOf(name, item), false);
      if (f.f === 'permanent' || (f.f === 'outage' && f.attempts === Infinity)) return undefined;
      if (f.f === 'decline') return new Set([DECLINED_OUTCOME]);
    }
    return new Set(['ok']);
  };
  const of = (n: Node): Set<string> | undefined => {
    switch (n.t) {
      case 'step':
        return calls(n.name, [undefined]);
      case 'each':
        return calls(n.name, n.items);
      case 'seq': {
        let cur = new Set(['ok']);
        for (const child of n.body) {
          if (!cur.has('ok')) break;
          const next = of(child);
          if (!next) return undefined;
          cur.delete('ok');
          cur = new Set([...cur, ...next]);
        }
        return cur;
      }
      case 'all': {
        const each = n.branches.map(of);
        if (each.some((e) => !e)) return undefined;
        const out = new Set<string>();
        for (const e of each as Set<string>[]) for (const o of e) if (o !== 'ok') out.add(o);
        if ((each as Set<string>[]).every((e) => e.has('ok'))) out.add('ok');
        return out;
      }
      case 'try': {
        const body = of(n.body);
        if (!body) return undefined;
        if (!body.has(DECLINED_OUTCOME)) return body;
        const fallback = of(n.fallback);
        if (!fallback) return undefined;
        body.delete(DECLINED_OUTCOME);
        return new Set([...body, ...fallback]);
      }
      case 'if': {
        const got = calls(n.name, [undefined]);
        if (!got || !got.has('ok')) return got;
        return of(valueOf(keyOf(n.name)).v % 2 === 0 ? n.then : n.else);
      }
      case 'sleep':
        return new Set(['ok']);
      case 'approval':
        return new Set([c.approved.includes(n.name) ? 'ok' : 'expired']);
      case 'child':
        return new Set([c.failingChildren.includes(n.name) ? 'failed' : 'ok']);
    }
  };
  const out = of(c.body);
  if (!out) return undefined;
  if (out.delete('ok')) out.add('completed');
  return out;
}

/** What the judge needs of the finished run. */
export interface Finished {
  outcome: string;
  /** The result's reason: a business failure's names its call first (`s3:item-1: …`). */
  reason?: string;
  provider: Provider;
  log: readonly LogEntry[];
  recoveryPoints: RecoveryPoint[];
  operatorActions: RecordedOperatorAction[];
}

/** Every invariant the run broke, as sentences (empty: it kept them all). */
export function judge(c: Case, run: Finished): string[] {
  const bad: string[] = [];
  const { provider, outcome } = run;
  const resolved = new Set(
    run.recoveryPoints.filter((p) => p.how === 'resolved').map((p) => p.step),
  );
  for (const [key, rec] of provider.keys)
    if (rec.intents.size > 1)
      bad.push(
        `key ${key} was sent for ${rec.intents.size} intents: ${[...rec.intents].join(' / ')}`,
      );
  const undos = [...provider.keys].filter(([, r]) => r.activity === 'undo');
  const forward = [...provider.keys].filter(([, r]) => r.activity === 'act');
  if (outcome === 'completed') {
    if (undos.length > 0) bad.push(`completed, yet undid ${undos.map(([k]) => k).join(', ')}`);
  } else {
    for (const step of c.steps) {
      if (!step.undo) continue;
      for (const [key, rec] of forward) {
        const prefix = keyOf(step.name);
        if (key !== prefix && !key.startsWith(`${prefix}:`)) continue;
        const item = key === prefix ? undefined : key.slice(prefix.length + 1);
        const id = item === undefined ? step.name : `${step.name}:${item}`;
        const effect = rec.applied || resolved.has(id);
        const undoKey = keyOf(`undo-${step.name}`, item);
        const undoId = item === undefined ? `undo-${step.name}` : `undo-${step.name}:${item}`;
        const undone = provider.keys.get(undoKey)?.applied || resolved.has(undoId);
        if (effect && !undone) bad.push(`${outcome}: the effect of ${key} was never undone`);
      }
    }
  }
  const cancelAt = run.log.findIndex(
    (e) =>
      e.delivery.type === 'cancel' ||
      (e.delivery.type === 'signal' && e.delivery.name === 'cancel'),
  );
  if (cancelAt >= 0) {
    const late = provider.attempts.filter((a) => a.activity === 'act' && a.order > cancelAt);
    if (late.length > 0)
      bad.push(
        `forward calls started after the cancel (delivery ${cancelAt}): ${late.map((a) => `${a.key}@${a.order}`).join(', ')}`,
      );
  }
  // An uncaught business failure stops every forward call the same way.
  if (outcome === DECLINED_OUTCOME && run.reason) {
    const id = run.reason.slice(0, run.reason.indexOf(': '));
    const [name, ...item] = id.split(':');
    const key = keyOf(name!, item.length ? item.join(':') : undefined);
    const seqs = new Set(
      run.log.flatMap((e) =>
        e.commands.flatMap((c) => (c.type === 'activity' && c.key === key ? [c.seq] : [])),
      ),
    );
    const failedAt = run.log.findIndex(
      (e) => e.delivery.type === 'activity' && !e.delivery.ok && seqs.has(e.delivery.seq),
    );
    const late = provider.attempts.filter((a) => a.activity === 'act' && a.order > failedAt);
    if (failedAt < 0)
      bad.push(`the run ended declined by ${id}, whose failure was never delivered`);
    else if (late.length > 0)
      bad.push(
        `forward calls started after ${id} declined (delivery ${failedAt}): ${late.map((a) => `${a.key}@${a.order}`).join(', ')}`,
      );
  }
  // A cancel delivered before the run's settlement of `completed` came back unwinds it.
  if (cancelAt >= 0 && outcome === 'completed') {
    const settles = new Set(
      run.log.flatMap((e) =>
        e.commands.flatMap((c) =>
          c.type === 'activity' && c.activity === 'settleClaim' ? [c.seq] : [],
        ),
      ),
    );
    const settledAt = run.log.findIndex(
      (e) => e.delivery.type === 'activity' && e.delivery.ok && settles.has(e.delivery.seq),
    );
    if (settledAt > cancelAt)
      bad.push(
        `completed although the cancel (delivery ${cancelAt}) came before its settlement (delivery ${settledAt})`,
      );
  }
  const settled = provider.settlements.at(-1);
  // An operator may say the settlement is done (resolve a parked one): then it is theirs.
  const resolvedSettle = run.operatorActions.some(
    (a) => a.action === 'resolve' && a.step === 'settle' && a.refused === undefined,
  );
  if (settled !== outcome && !resolvedSettle)
    bad.push(`the claim settled ${String(settled)}, the run ended ${outcome}`);
  // The model predicts runs nobody acted on (an operator's retry, resolve or cancel decides).
  const predicted = run.operatorActions.length === 0 ? predictOutcomes(c) : undefined;
  if (predicted && !predicted.has(outcome))
    bad.push(`the model predicts ${[...predicted].join(' or ')}, the run ended ${outcome}`);
  return bad;
}
