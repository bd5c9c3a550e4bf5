// The model a generated run is judged against: the invariants every run must keep whatever
// happened (docs/architecture.md, "A run's phases"; docs/api.md): each key one intent (its
// step, item AND input); never terminated by Temporal, no workflow task failing for ever;
// every effect of a run that did not complete undone exactly once, a child's too where it
// declares an undo; nothing undone that never ran, nor for a run that completed; an undo of
// a resolved call built from the result the operator gave; a run that does not own its entity
// never acting; the claim settled with the outcome; the outcome the fault plan predicts.
// The order of things in the run's activations is judge-order.ts's.
import type { Closed, LogEntry } from '../emulator/runtime';
import { callIdOf } from '../../../src/workflows/run-state';
import type { RecordedOperatorAction, RecoveryPoint } from '../../../src/workflows/saga-status';
import type { Case } from './generate';
import { judgeOrder } from './judge-order';
import { predictOutcomes } from './predict';
import { keyOf, type KeyRecord, type Provider } from './provider';

/** What the judge needs of the finished run. */
export interface Finished {
  outcome: string;
  /** The result's reason: a business failure's names its call first (`s3:item-1: …`). */
  reason?: string;
  provider: Provider;
  /** The last run's activations (a reset's run holds the history it kept). */
  log: readonly LogEntry[];
  /** Every activity command sent, across the runs of the chain. */
  sent: ReadonlySet<string>;
  closed?: Closed;
  stuck?: string;
  /** Why its workflow tasks failed (a deploy's flagged replay aside). */
  taskFailures: string[];
  recoveryPoints: RecoveryPoint[];
  operatorActions: RecordedOperatorAction[];
  /** Steps an operator resolved with a result (`resolve --result`), by call. */
  resolvedWith: ReadonlyMap<string, { v: number }>;
  /** The run was reset (its log is the new run's). */
  reset: boolean;
  /** The chain's resets so far: the epoch of the run judged (provider KeyRecord.byReset). */
  resets: number;
}

const NOT_OWNER = new Set(['duplicate', 'model-conflict']);

/** Every invariant the run broke, as sentences (empty: it kept them all), alike ones merged. */
export function judge(c: Case, run: Finished): string[] {
  return merged(judged(c, run));
}

/**
 * Whether `key` is only an old run's: the run judged was reset and never scheduled it (its
 * log holds the prefix the reset kept), so an old run sent it after the reset point.
 */
function oldRunsOnly(run: Finished, key: string): boolean {
  if (!run.reset) return false;
  return !run.log.some((e) => e.commands.some((c) => c.type === 'activity' && c.key === key));
}

/** `<what> <key>` sentences that differ only by their key, as one with a count. */
function merged(bad: string[]): string[] {
  const groups = new Map<string, string[]>();
  for (const b of bad) {
    const shape = b.replace(/model:m-1:[^\s,)]+/g, '<key>');
    groups.set(shape, [...(groups.get(shape) ?? []), b]);
  }
  return [...groups.entries()].map(([shape, all]) =>
    all.length < 3 ? all.join('; ') : `${all.length}×: ${shape} (${all[0]}, …)`,
  );
}

function judged(c: Case, run: Finished): string[] {
  const bad: string[] = [];
  const { provider, outcome } = run;
  if (run.closed?.status === 'terminated') bad.push(`terminated by Temporal: ${run.closed.reason}`);
  if (run.stuck) bad.push(`its workflow task fails for ever: ${run.stuck}`);
  else if (run.taskFailures.length > 0 && run.closed?.status !== 'terminated')
    bad.push(
      `${run.taskFailures.length} workflow task(s) failed: ${[...new Set(run.taskFailures)].join('; ')}`,
    );
  const resolved = new Set(
    run.recoveryPoints.filter((p) => p.how === 'resolved').map((p) => p.step),
  );
  for (const [key, rec] of provider.keys) {
    const within = [...rec.byReset.values()].find((intents) => intents.size > 1);
    if (within)
      bad.push(`key ${key} was sent for ${within.size} intents: ${[...within].join(' / ')}`);
    else if (reusedAcrossRuns(rec))
      bad.push(
        `key ${key} was sent for ${rec.intents.size} intents by the runs of a reset: ${[...rec.intents].join(' / ')}`,
      );
  }
  const forward = [...provider.keys].filter(([, r]) => r.activity !== 'undo');
  const undos = [...provider.keys].filter(([, r]) => r.activity === 'undo');
  const notOwner = NOT_OWNER.has(outcome);
  if (notOwner) {
    const claim = c.claimStep ? keyOf(c.claimStep) : undefined;
    const acted = forward.filter(([k]) => k !== claim).map(([k]) => k);
    if (acted.length > 0) bad.push(`the ${outcome} run acted: ${acted.join(', ')}`);
  } else if (outcome === 'completed') {
    // A reset to before the point where the old run began undoing (a Temporal cancel, which a
    // reset does not reapply, or a failure that passes this time) discards that unwind from
    // history, not from the provider: the undos it sent stay done, and the reset run, which
    // cannot know of them, goes on. docs/operations.md warns of it; the old run's undos are
    // not this run's, every undo this run sent is.
    const own = undos.filter(([k]) => !oldRunsOnly(run, k));
    if (own.length > 0) bad.push(`completed, yet undid ${own.map(([k]) => k).join(', ')}`);
  } else bad.push(...unundone(c, run, resolved));
  if (!notOwner)
    for (const [key, rec] of undos) {
      const fwd = key.replace(':undo-', ':');
      const id = forwardIdOf(rec);
      const kid = c.children.find((k) => keyOf(k.name) === fwd);
      // A child's undo is owed once the child completed, or when it may have acted (terminated
      // or timed out); one that failed or was cancelled ended by its own rules.
      const mayHaveActed = (name: string) =>
        provider.childrenDone.has(name) || provider.childrenActed.has(name);
      if (kid && !mayHaveActed(kid.name) && !resolved.has(id))
        bad.push(`undid child ${kid.name}, which never completed (${key})`);
      // An operator's resolve says the effect happened (by hand, elsewhere): its undo is owed.
      else if (!kid && !run.sent.has(fwd) && !resolved.has(id))
        bad.push(`undid ${fwd}, whose call was never scheduled (${key})`);
      // The resolve is this run's: judged against the undos this run sent (an old run's, sent
      // before a reset, knew only what that run knew).
      const given = run.resolvedWith.get(id);
      const epoch = run.reset ? run.resets : 0;
      const sent = [...(rec.byReset.get(epoch) ?? [])].map(
        (i) => (JSON.parse(i) as { v?: number }).v,
      );
      if (given && resolved.has(id) && sent.length > 0 && !sent.includes(given.v))
        bad.push(
          `the undo of ${id} got v=${sent.map(String).join('/')}, the operator resolved it with v=${given.v}`,
        );
    }
  bad.push(...judgeOrder(c, run));
  const settled = provider.settlements
    .filter((s) => !s.workflowId || s.workflowId === 'wf-1')
    .at(-1);
  // An operator may say the settlement is done (resolve a parked one): then it is theirs.
  const resolvedSettle = run.operatorActions.some(
    (a) => a.action === 'resolve' && a.step === 'settle' && a.refused === undefined,
  );
  // A run Temporal ended (or whose task fails for ever) never settles: said above already.
  const ended = run.closed?.status === 'terminated' || run.stuck !== undefined;
  if (!notOwner && !ended && settled?.settled !== outcome && !resolvedSettle)
    bad.push(`the claim settled ${String(settled?.settled)}, the run ended ${outcome}`);
  // The engine settles a closed owner's claim it compensated for (a domain's own claim settles
  // it in its undo's transaction).
  if (
    notOwner &&
    !c.claimStep &&
    c.ownerGone &&
    run.operatorActions.some((a) => a.action === 'cancel')
  )
    if (
      !provider.settlements.some((s) => s.workflowId === 'owner-wf' && s.settled === 'unwound') &&
      // An operator may say that settlement is done (resolve the parked call): then it is theirs.
      !run.operatorActions.some(
        (a) => a.action === 'resolve' && a.step === 'settle-owner' && a.refused === undefined,
      )
    )
      bad.push(`the ${outcome} run compensated for the closed owner but never settled its claim`);
  // A body that starts a step or child before its claiming step is refused (claims first): the
  // run fails naming the claiming step, having acted on nothing but the claim.
  const refusedBody =
    c.claimStep !== undefined &&
    outcome === 'failed' &&
    new RegExp(` ${c.claimStep}, the step that claims the entity`).test(run.reason ?? '');
  if (refusedBody) {
    const claim = keyOf(c.claimStep!);
    const acted = forward.filter(([k, r]) => k !== claim && r.applied).map(([k]) => k);
    if (acted.length > 0)
      bad.push(`a body refused for acting before its claim acted: ${acted.join(', ')}`);
  }
  // The model predicts runs nobody acted on (an operator's retry, resolve or cancel decides).
  const predicted =
    run.operatorActions.length === 0 && !run.reset && !ended && !refusedBody
      ? predictOutcomes(c)
      : undefined;
  if (predicted && !predicted.has(outcome))
    bad.push(`the model predicts ${[...predicted].join(' or ')}, the run ended ${outcome}`);
  return bad;
}

/**
 * The call a key was sent for, as the run names it (`<step>` or `<step>:<item>`), from the
 * intent the provider received (its name and item), never parsed back from the key: a long
 * item's key part is its hash (`~` and 32 hex digits), which an item may also spell literally
 * (its key part then `%7E…`), so only the input tells the two calls apart. An undo's is its
 * forward call's.
 */
function forwardIdOf(rec: KeyRecord): string {
  const { name, item } = rec.input as { name: string; item?: string };
  return callIdOf(name.replace(/^undo-/, ''), item);
}

/**
 * Whether the runs of a reset sent one key for intents that differ beyond what each run knew.
 * A reset's run does again, with the entity's keys, what the old run did after the reset point
 * (docs/orders.md), knowing only the history before it: an undo's input carries its call's
 * result as that run knew it (none while unknown, the answer, or an operator's `--result`:
 * docs/api.md), so the old run's undo and the new run's may differ there, and only there.
 */
function reusedAcrossRuns(rec: KeyRecord): boolean {
  if (rec.intents.size <= 1) return false;
  if (rec.activity !== 'undo') return true;
  const apartFromResult = (intent: string) => {
    const { v: _v, ...rest } = JSON.parse(intent) as Record<string, unknown>;
    return JSON.stringify(rest);
  };
  return new Set([...rec.intents].map(apartFromResult)).size > 1;
}

/** Effects of a run that did not complete, and never undone. */
function unundone(c: Case, run: Finished, resolved: ReadonlySet<string>): string[] {
  const bad: string[] = [];
  const { provider, outcome } = run;
  for (const step of c.steps) {
    if (!step.undo) continue;
    const prefix = keyOf(step.name);
    for (const [key, rec] of provider.keys) {
      if (rec.activity === 'undo' || (key !== prefix && !key.startsWith(`${prefix}:`))) continue;
      const item = (rec.input as { item?: string }).item;
      const id = callIdOf(step.name, item);
      const undoId = callIdOf(`undo-${step.name}`, item);
      // An effect only an old run sent, after the point a reset went back to, is that run's:
      // the reset run does not know of it unless it takes the same path (docs/operations.md).
      const effect = (rec.applied && !oldRunsOnly(run, key)) || resolved.has(id);
      // The undo's key is the step's with its name replaced (the item part escaped alike).
      const undoKey = keyOf(`undo-${step.name}`) + key.slice(prefix.length);
      const undone = provider.keys.get(undoKey)?.applied || resolved.has(undoId);
      if (effect && !undone) bad.push(`${outcome}: the effect of ${key} was never undone`);
    }
  }
  for (const kid of c.children)
    if (
      kid.undo &&
      provider.childrenDone.has(kid.name) &&
      !provider.keys.get(keyOf(`undo-${kid.name}`))?.applied &&
      !resolved.has(`undo-${kid.name}`)
    )
      bad.push(`${outcome}: child ${kid.name} completed and was never undone`);
  return bad;
}
