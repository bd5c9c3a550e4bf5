// The outcomes a generated run may end with when nothing but its plan acts on it (no cancel,
// no operator): `completed` when the body may return, a set when steps at once may fail
// first in either order, undefined when an operator must decide (a call parks).
import { DECLINED_OUTCOME } from './body';
import type { Case, Node } from './generate';
import { faultOf } from './plan';
import { keyOf, valueOf } from './provider';

export function predictOutcomes(c: Case): Set<string> | undefined {
  // A run at one of Temporal's limits ends as the engine's rule for it says (parked, refused).
  if (c.cancelAt !== undefined || c.heavy) return undefined;
  if (c.verdict !== 'owner') {
    // An in-step claim's verdict comes when its step runs; the engine's before the body.
    if (c.claimStep) return undefined;
    return new Set([c.verdict === 'duplicate' ? 'duplicate' : 'model-conflict']);
  }
  if (Object.keys(c.forced).length > 0) return undefined;
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
      case 'fan': {
        const each = Array.from({ length: n.items }, (_, i) => calls(n.name, [`i${i}`]));
        return merge(each);
      }
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
      case 'all':
        return merge(n.branches.map(of));
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
      case 'loop':
        return new Set(['ok']);
      case 'approval':
        if (n.via === 'signal') return new Set([c.approved.includes(n.name) ? 'ok' : 'expired']);
        return new Set([c.updates[n.name] === 'never' ? 'expired' : 'ok']);
      case 'child':
      case 'children':
        return new Set([(c.childEnds[n.name] ?? 'ok') === 'ok' ? 'ok' : 'failed']);
    }
  };
  const out = of(c.body);
  if (!out) return undefined;
  if (out.delete('ok')) out.add('completed');
  return out;
}

/** Steps at once: each may fail first; all ok only when each may be ok. */
function merge(each: Array<Set<string> | undefined>): Set<string> | undefined {
  if (each.some((e) => !e)) return undefined;
  const out = new Set<string>();
  for (const e of each as Set<string>[]) for (const o of e) if (o !== 'ok') out.add(o);
  if ((each as Set<string>[]).every((e) => e.has('ok'))) out.add('ok');
  return out;
}
