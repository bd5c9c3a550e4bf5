// The "current details" of a saga run in the Temporal Web UI: what the on-call person needs to
// decide without reading code. Pure (used by workflow code). The UI renders them as Markdown
// (raw HTML and bare links included), so every text that quotes a producer, a provider or an
// operator is a code span (markdownCode): shown as written, never as markup.
import type { SagaStatus } from './saga-status';
import { markdownCode, shellCommand } from '../util/shell-quote';

/** How a domain's runs are named to an operator. */
export interface SagaDisplay {
  /** The entity in a sentence: `order`. */
  entity: string;
  /** The ops CLI's group for the domain: `orders` (`npx onceflow orders retry -- <id>`). */
  cli: string;
  /** The cancellation signal's name (`cancelOrder`, or the engine's `cancel`). */
  cancelSignal: string;
  /** Who a step talks to, as an operator would name it: `the payment provider`. */
  counterpart(step: string): string;
}

/**
 * A copy-paste command: the entity ID comes from a producer, so it is quoted for the shell and
 * follows `--`, so an ID such as `--all` is an ID to the CLI, never an option.
 */
const cmd = (display: SagaDisplay, verb: string, entityId: string) =>
  markdownCode(shellCommand(['npx', 'onceflow', display.cli, verb, '--', entityId]));

/** `10:41:02` of an ISO time (UTC): short enough for a status line. */
function clock(isoTime: string): string {
  return `${isoTime.slice(11, 19)} UTC`;
}

/** What an operator may do about a parked step (memo `attention.action`, current details). */
export function parkedActionOf(display: SagaDisplay, status: SagaStatus, step: string): string {
  const id = status.entityId;
  return `one of: ${cmd(display, 'retry', id)} (signal \`retryStep\`: run ${step} again with the same key) · ${cmd(display, 'resolve', id)} (signal \`resolveStep\`: the effect is confirmed, continue) · ${cmd(display, 'cancel', id)} (signal \`${display.cancelSignal}\`: compensate)`;
}

/** What an operator may do about a waiting step: nothing, unless they know better. */
export function waitingActionOf(
  display: SagaDisplay,
  status: SagaStatus,
  step: string,
  deadline: string,
): string {
  const id = status.entityId;
  return `none needed: ${step} retries on its own with the same key until ${deadline}, then parks; ${cmd(display, 'retry', id)} tries now, ${cmd(display, 'cancel', id)} compensates`;
}

/** Markdown for setCurrentDetails: the step, the last error and, when parked, what to do. */
export function currentDetailsOf(display: SagaDisplay, status: SagaStatus): string {
  const lines = [`**step** ${status.step}`];
  if (status.waiting) {
    const w = status.waiting;
    lines.push(
      `**waiting** for ${display.counterpart(w.step)} since ${clock(w.since)}, retried by Temporal until ${clock(w.until)} at most (attempts: the pending activity)`,
      `**last error** (${w.step}): ${markdownCode(w.cause)}`,
      `**key** ${markdownCode(status.keys[w.step] ?? '')}`,
    );
  }
  if (status.pausedFor) {
    const p = status.pausedFor;
    lines.push(
      p.kind === 'sleep'
        ? `**sleeping** (${markdownCode(p.label)}) until ${p.until}`
        : `**awaiting** ${markdownCode(p.label)} (${p.kind}) until ${p.until}; past it the run goes on without it`,
    );
  }
  if (status.parked) {
    lines.push(
      `**last error** (${status.parked.step}, since ${status.parked.since}): ${markdownCode(status.parked.error)}`,
      `**action expected** ${parkedActionOf(display, status, status.parked.step)}`,
      `**key** ${markdownCode(status.keys[status.parked.step] ?? '')}`,
    );
  }
  if (status.owner) {
    const conflict = status.outcome === `${display.entity}-conflict`;
    const article = /^[aeiou]/.test(display.entity) ? 'an' : 'a';
    const { runId, settled } = status.owner;
    lines.push(
      `**owner** ${display.entity} ${markdownCode(status.entityId)} belongs to workflow ${markdownCode(status.owner.workflowId)}` +
        (runId !== undefined
          ? ` (run ${markdownCode(runId)}${settled ? `, settled ${settled}` : ''})`
          : '') +
        (conflict
          ? ` with payload fingerprint ${markdownCode(status.owner.fingerprint)}; this run's is ${markdownCode(status.owner.runFingerprint)}: ${article} ${display.entity} conflict, nothing done (fix the producer; \`Step = "${display.entity}_conflict"\` lists them all)`
          : ' with the same payload: this run is a duplicate and did nothing'),
    );
  }
  if (status.reopened) {
    lines.push(
      `**reopened** the ${display.entity} had settled ${status.reopened.settled} at ${status.reopened.settledAt}; a reset runs its steps again with the ${display.entity}'s keys`,
    );
  }
  if (status.cancellation)
    lines.push(`**cancellation** ${markdownCode(status.cancellation.reason)}`);
  if (status.operatorActions?.length) {
    const actions = status.operatorActions.map(
      (a) =>
        `${a.action}${a.step ? ` of ${a.step}` : ''} by ${markdownCode(a.by)} at ${markdownCode(a.at)}${a.reason ? ` (${markdownCode(a.reason)})` : ''}`,
    );
    lines.push(`**operator actions** ${actions.join(' · ')}`);
  }
  if (status.outcome) lines.push(`**outcome** ${status.outcome}`);
  const points = status.recoveryPoints.map((p) => `${p.step} (${p.how})`).join(', ');
  lines.push(`**recovery points** ${points || 'none yet'}`);
  return lines.join('\n\n');
}
