// What the worker and the server check of a workflow task's completion before writing it, in
// their order: every payload under the blob limit (the worker fails the task as
// PayloadsTooLarge, retried for ever), the whole completion under the 4 MB gRPC message limit
// (GrpcMessageTooLarge: the server terminates the run), and the pending activities, children,
// external signals and cancel requests under 2,000 each (the server fails the task,
// PENDING_*_LIMIT_EXCEEDED, retried for ever).
import type { Execution } from './execution';
import { LIMITS } from './limits';
import type { Command } from './types';

export type TaskFailure =
  /** Fails the same way on every retry (until a new job changes what the code does). */
  | { kind: 'stuck'; reason: string }
  /** The server terminates the run. */
  | { kind: 'terminate'; reason: string }
  /** A retry on a fresh incarnation goes through (FORCE_CLOSE_COMMAND). */
  | { kind: 'retry'; reason: string };

/** What a command's attributes cost in the completion beside its payloads. */
const COMMAND_FRAMING = 64;

export function checkCompletion(
  commands: readonly Command[],
  exec: Execution,
): TaskFailure | undefined {
  const tooBig = commands.find((c) => (c.blob ?? 0) > LIMITS.blobBytes);
  if (tooBig)
    return {
      kind: 'stuck',
      reason: `PayloadsTooLarge: a ${tooBig.type} command's payload is ${tooBig.blob} bytes (limit ${LIMITS.blobBytes})`,
    };
  const size = commands.reduce((n, c) => n + (c.bytes ?? 0) + COMMAND_FRAMING, 0);
  if (size > LIMITS.grpcMessageBytes)
    return {
      kind: 'terminate',
      reason: `GrpcMessageTooLarge: the task's completion is ${size} bytes (limit ${LIMITS.grpcMessageBytes}) across ${commands.length} commands`,
    };
  const count = (type: Command['type'], also = (_c: Command) => true) =>
    commands.filter((c) => c.type === type && also(c)).length;
  const pending: Array<[string, number, number]> = [
    [
      'ACTIVITIES',
      exec.activities.pending + count('activity', (c) => c.type === 'activity' && !c.local),
      LIMITS.pendingActivities,
    ],
    ['CHILD_WORKFLOWS', exec.children.pending + count('child'), LIMITS.pendingChildren],
    ['SIGNALS', exec.signalsOut + count('signal-external'), LIMITS.pendingSignals],
    [
      'REQUEST_CANCEL',
      exec.children.cancelRequests + count('cancel-child'),
      LIMITS.pendingCancelRequests,
    ],
  ];
  for (const [what, n, limit] of pending)
    if (n > limit)
      return {
        kind: 'stuck',
        reason: `PENDING_${what}_LIMIT_EXCEEDED: ${n} pending (limit ${limit})`,
      };
  return undefined;
}
