// The "current details" of an order in the Temporal Web UI: what the on-call person needs to
// decide without reading code. Pure (used by workflow code). The UI renders them as Markdown
// (raw HTML and bare links included), so every text that quotes a producer, a provider or an
// operator is a code span (markdownCode): shown as written, never as markup.
import type { OrderStatus, StepName } from './order-definitions';
import { markdownCode, shellCommand } from '../util/shell-quote';

/**
 * A copy-paste command: the order ID comes from a producer, so it is quoted for the shell and
 * follows `--`, so an ID such as `--all` is an ID to the CLI, never an option.
 */
const cmd = (verb: string, orderId: string) =>
  markdownCode(shellCommand(['npx', 'onceflow', 'orders', verb, '--', orderId]));

/** Who a step talks to, as an operator would name it. */
const COUNTERPART: Record<StepName, string> = {
  reserve: 'the inventory database',
  release: 'the inventory database',
  charge: 'the payment provider',
  refund: 'the payment provider',
  email: 'the mail provider',
};

/** `10:41:02` of an ISO time (UTC): short enough for a status line. */
function clock(isoTime: string): string {
  return `${isoTime.slice(11, 19)} UTC`;
}

/** What an operator may do about a parked step (memo `attention.action`, current details). */
export function parkedActionOf(status: OrderStatus, step: StepName): string {
  const id = status.orderId;
  return `one of: ${cmd('retry', id)} (signal \`retryStep\`: run ${step} again with the same key) · ${cmd('resolve', id)} (signal \`resolveStep\`: the effect is confirmed, continue) · ${cmd('cancel', id)} (signal \`cancelOrder\`: compensate)`;
}

/** What an operator may do about a waiting step: nothing, unless they know better. */
export function waitingActionOf(status: OrderStatus, step: StepName, deadline: string): string {
  const id = status.orderId;
  return `none needed: ${step} retries on its own with the same key until ${deadline}, then parks; ${cmd('retry', id)} tries now, ${cmd('cancel', id)} compensates`;
}

/** Markdown for setCurrentDetails: the step, the last error and, when parked, what to do. */
export function currentDetailsOf(status: OrderStatus): string {
  const lines = [`**step** ${status.step}`];
  if (status.waiting) {
    const w = status.waiting;
    const inSeconds = Math.round((Date.parse(w.nextTryAt) - Date.now()) / 1000);
    lines.push(
      `**waiting** for ${COUNTERPART[w.step]} since ${clock(w.since)}, attempt ${w.attempt}, next try in ${inSeconds} s (at ${clock(w.nextTryAt)})`,
      `**last error** (${w.step}): ${markdownCode(w.cause)}`,
      `**key** ${markdownCode(status.keys[w.step])}`,
    );
  }
  if (status.parked) {
    lines.push(
      `**last error** (${status.parked.step}, since ${status.parked.since}): ${markdownCode(status.parked.error)}`,
      `**action expected** ${parkedActionOf(status, status.parked.step)}`,
      `**key** ${markdownCode(status.keys[status.parked.step])}`,
    );
  }
  if (status.owner) {
    const conflict = status.outcome === 'order-conflict';
    const { runId, settled } = status.owner;
    lines.push(
      `**owner** order ${markdownCode(status.orderId)} belongs to workflow ${markdownCode(status.owner.workflowId)}` +
        (runId !== undefined
          ? ` (run ${markdownCode(runId)}${settled ? `, settled ${settled}` : ''})`
          : '') +
        (conflict
          ? ` with payload fingerprint ${markdownCode(status.owner.fingerprint)}; this run's is ${markdownCode(status.owner.runFingerprint)}: an order conflict, nothing done (fix the producer; \`OrderStep = "order_conflict"\` lists them all)`
          : ' with the same payload: this run is a duplicate and did nothing'),
    );
  }
  if (status.reopened) {
    lines.push(
      `**reopened** the order had settled ${status.reopened.settled} at ${status.reopened.settledAt}; a reset runs its steps again with the order's keys`,
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
