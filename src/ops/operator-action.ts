import { userInfo } from 'node:os';
import type { OperatorAction } from '../domains/orders/workflows/order-definitions';
import { UsageError } from './output';

// Who did what, when and why: the payload of the operator signals (retryStep, resolveStep,
// cancelOrder), recorded by the workflow in `OrderStatus.operatorActions`. The shape is the
// workflow's (one owner); the batch operation's reason carries the same facts for the Web UI.
/** The OS user, or `unknown` where the platform has none (a container without /etc/passwd). */
function osUser(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The action of one command: `--by` (default the OS user), `--reason`, now. */
export function operatorActionOf(options: { by?: string; reason?: string }, now = new Date()) {
  const by = (options.by ?? osUser()).trim();
  if (by === '') throw new UsageError('--by may not be empty');
  const action: OperatorAction = { by, at: now.toISOString() };
  if (options.reason !== undefined && options.reason.trim() !== '') action.reason = options.reason;
  return action;
}

/** The reason line of a batch operation: what, by whom, why (shown in the Web UI's batch list). */
export function batchReasonOf(verb: string, action: OperatorAction): string {
  return `${verb} by ${action.by}${action.reason ? `: ${action.reason}` : ''} (onceflow CLI)`;
}
