// The order of things in a generated run's activations: no forward call scheduled after a
// cancellation or an uncaught business failure reached the code; none beside or before an
// in-step claim's verdict (claims first); a cancel that came before the settlement of
// `completed` came back unwinds the run. A command the SDK dropped (cancelled in the task that
// issued it) never reached the server and does not count.
import type { Command, LogEntry } from '../emulator/runtime';
import { DECLINED_OUTCOME } from './body';
import type { Case } from './generate';
import type { Finished } from './judge';
import { keyOf } from './provider';

const isForward = (c: Command) =>
  c.type === 'activity' && !c.dropped && (c.activity === 'act' || c.activity === 'act2');

/** Forward calls scheduled in activations from `from` on, as `key@activation`. */
function forwardFrom(log: readonly LogEntry[], from: number, except?: string): string[] {
  const out: string[] = [];
  log.forEach((e, i) => {
    if (i < from) return;
    for (const c of e.commands)
      if (isForward(c) && c.type === 'activity' && c.key !== except) out.push(`${c.key}@${i}`);
  });
  return out;
}

/** The activation that delivered activity `key`'s end (ok or not), or -1. */
function deliveredAt(log: readonly LogEntry[], key: string, ok?: boolean): number {
  const seqs = new Set(
    log.flatMap((e) =>
      e.commands.flatMap((c) => (c.type === 'activity' && c.key === key ? [c.seq] : [])),
    ),
  );
  return log.findIndex((e) =>
    e.jobs.some(
      (j) => j.type === 'activity' && seqs.has(j.seq) && (ok === undefined || j.ok === ok),
    ),
  );
}

export function judgeOrder(c: Case, run: Finished): string[] {
  if (run.reset) return [];
  const bad: string[] = [];
  const { log, outcome } = run;
  const cancelAt = log.findIndex((e) =>
    e.jobs.some((j) => j.type === 'cancel' || (j.type === 'signal' && j.name === 'cancel')),
  );
  if (cancelAt >= 0) {
    const late = forwardFrom(log, cancelAt);
    if (late.length > 0)
      bad.push(
        `forward calls scheduled after the cancel (activation ${cancelAt}): ${late.join(', ')}`,
      );
  }
  // An uncaught business failure stops every forward call the same way.
  if (outcome === DECLINED_OUTCOME && run.reason) {
    const id = run.reason.slice(0, run.reason.indexOf(': '));
    const [name, ...item] = id.split(':');
    const failedAt = deliveredAt(
      log,
      keyOf(name!, item.length ? item.join(':') : undefined),
      false,
    );
    if (failedAt < 0)
      bad.push(`the run ended declined by ${id}, whose failure was never delivered`);
    else {
      const late = forwardFrom(log, failedAt);
      if (late.length > 0)
        bad.push(
          `forward calls scheduled after ${id} declined (activation ${failedAt}): ${late.join(', ')}`,
        );
    }
  }
  // Claims first: nothing else starts before the claiming step's verdict.
  if (c.claimStep) {
    const claim = keyOf(c.claimStep);
    const verdictAt = deliveredAt(log, claim, true);
    // Steps the body starts once the verdict is in (the same activation, after it) are fine.
    const until = verdictAt < 0 ? log.length : verdictAt;
    const early = forwardFrom(log.slice(0, until), 0, claim);
    if (early.length > 0)
      bad.push(`steps scheduled before the claim's verdict (${c.claimStep}): ${early.join(', ')}`);
  }
  // A cancel delivered before the run's settlement of `completed` came back unwinds it.
  if (cancelAt >= 0 && outcome === 'completed') {
    const settledAt = log.findIndex((e) =>
      e.jobs.some((j) => j.type === 'activity' && j.local && j.ok && settles(log, j.seq)),
    );
    if (settledAt > cancelAt)
      bad.push(
        `completed although the cancel (activation ${cancelAt}) came before its settlement (activation ${settledAt})`,
      );
  }
  return bad;
}

function settles(log: readonly LogEntry[], seq: number): boolean {
  return log.some((e) =>
    e.commands.some(
      (c) =>
        c.type === 'activity' &&
        c.seq === seq &&
        (c.activity === 'settleClaim' || c.activity === 'settle'),
    ),
  );
}
