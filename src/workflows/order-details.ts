// The "current details" of an order in the Temporal Web UI: what the on-call person needs to
// decide without reading code. Pure (used by workflow code).
import type { OrderStatus } from './order-definitions';
import { markdownCode, shellCommand } from '../util/shell-quote';

/** A copy-paste command: the order ID comes from a producer, so it is quoted for the shell. */
const cmd = (verb: string, orderId: string) =>
  markdownCode(shellCommand(['npx', 'onceflow', 'orders', verb, orderId]));

/** Markdown for setCurrentDetails: the step, the last error and, when parked, what to do. */
export function currentDetailsOf(status: OrderStatus): string {
  const lines = [`**step** ${status.step}`];
  if (status.parked) {
    const id = status.orderId;
    lines.push(
      `**last error** (${status.parked.step}, since ${status.parked.since}): ${status.parked.error}`,
      `**action expected** one of: ${cmd('retry', id)} (signal \`retryStep\`: run ${status.parked.step} again with the same key) · ${cmd('resolve', id)} (signal \`resolveStep\`: the effect is confirmed, continue) · ${cmd('cancel', id)} (signal \`cancelOrder\`: compensate)`,
      `**key** \`${status.keys[status.parked.step]}\``,
    );
  }
  if (status.owner) {
    const conflict = status.outcome === 'order-conflict';
    lines.push(
      `**owner** order ${status.orderId} belongs to workflow \`${status.owner.workflowId}\`` +
        (conflict
          ? ` with payload fingerprint \`${status.owner.fingerprint}\`; this run's is \`${status.owner.runFingerprint}\`: an order conflict, nothing done (fix the producer; \`OrderStep = "order_conflict"\` lists them all)`
          : ' with the same payload: this run is a duplicate and did nothing'),
    );
  }
  if (status.cancellation) lines.push(`**cancellation** ${status.cancellation.reason}`);
  if (status.outcome) lines.push(`**outcome** ${status.outcome}`);
  const points = status.recoveryPoints.map((p) => `${p.step} (${p.how})`).join(', ');
  lines.push(`**recovery points** ${points || 'none yet'}`);
  return lines.join('\n\n');
}
