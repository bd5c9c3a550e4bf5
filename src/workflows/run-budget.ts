// How a run stays under Temporal's limits: one budget of history events AND bytes, for
// everything the run writes. What the history holds is Temporal's own count (workflowInfo's
// historyLength and historySize, deterministic on replay); what the run may still write is
// reserved: every call in flight and every undo it owes, each at the most one call can take
// (its rounds, its park, the workflow tasks around them, its input three times over and a
// result). Three lines over `used + reserved`:
//
//   FORWARD_BUDGET  a forward action of the body (a step, a child, a sleep, a wait) starts only
//                   under it; past it the action parks with the reason `history-budget`, for an
//                   operator to resolve or cancel (a body that loops checkpoints first)
//   RETRY_BUDGET    an operator's retry is taken only under it; past it the request is refused
//                   (as an update, before it writes anything)
//   LAST_LINE       what the run cannot refuse (signals, Temporal's own cancel, workflow
//                   tasks) pushed it here: the run ends `history-budget` and unwinds at once,
//                   while the room between this line and Temporal's limit still holds it
//
// Pure: workflow code, and the model of the property test.

const KiB = 1024;
const MiB = 1024 * KiB;

/** Temporal's limits on one run (the server's defaults), which the budget keeps it under. */
export const TEMPORAL_LIMITS = {
  /** `limit.historyCount.error`: the run is terminated at this many events. */
  events: 51_200,
  /** `limit.historySize.error`: the run is terminated past this many bytes of history. */
  bytes: 50 * MiB,
  /** `limit.blobSize.error`: a single payload over it fails the workflow task, for ever. */
  payloadBytes: 2 * MiB,
  /** The gRPC message limit: a workflow task's completion over it terminates the run. */
  taskBytes: 4 * MiB,
  /** `limit.numPendingActivities.error` (children likewise): a task past it fails. */
  pending: 2_000,
} as const;

/** Temporal terminates a run at this many events (TEMPORAL_LIMITS.events). */
export const TEMPORAL_HISTORY_LIMIT = TEMPORAL_LIMITS.events;

/** Events and bytes of history. */
export interface Usage {
  events: number;
  bytes: number;
}

/** A forward action starts only while used + reserved + its own cost stays under this. */
export const FORWARD_BUDGET: Usage = { events: 30_000, bytes: 30 * MiB };

/** An operator retry is taken only while used + reserved + its cost stays under this. */
export const RETRY_BUDGET: Usage = { events: 42_000, bytes: 40 * MiB };

/** Past this (what the run cannot refuse put it here) the run ends and unwinds at once. */
export const LAST_LINE: Usage = { events: 46_000, bytes: 44 * MiB };

/**
 * Where `checkpoint` continues as new: past Temporal's own warning (10,240 events or 10 MB,
 * when the server also suggests it), well before the forward budget.
 */
export const CHECKPOINT_LINE: Usage = { events: 10_000, bytes: 10 * MiB };

/**
 * The largest input or result one call may carry (JSON bytes): under Temporal's 2 MB blob limit
 * with room for the codec's envelope and the payload's metadata.
 */
export const MAX_PAYLOAD_BYTES = 1 * MiB;

/**
 * New payload bytes one workflow task may schedule: a fan-out past it goes on in the next
 * task, so one completion stays far under the 4 MB gRPC limit.
 */
export const MAX_TASK_PAYLOAD_BYTES = 2 * MiB;

/**
 * Calls in flight at once: more wait for a slot. Temporal fails a task past 2,000 pending
 * activities, and force-fails a started workflow task once more than 100 events arrive while it
 * runs (`history.maximumBufferedEventsBatch`: FORCE_CLOSE_COMMAND, seen on the real server
 * with 500 calls in flight); each call's completion is two events, so 40 leave room for the
 * signals that may arrive beside them.
 */
export const MAX_CALLS_IN_FLIGHT = 40;

/**
 * The most events one call takes without an operator: its fast round (scheduled, started,
 * failed), its waiting round (the same three), its park, the Step and memo upserts of each
 * change, and the workflow tasks around them (three events each). Measured on the real stack
 * by test/integration/workflows/history-bound.test.ts (a call that waits its whole window and
 * parks takes 20), with room to spare.
 */
export const EVENTS_PER_CALL = 32;

/**
 * What an event costs besides its payloads (IDs, types, options, a summary, a failure): a
 * scheduled activity with its summary and retry policy is about 400 bytes on the real server.
 */
export const BYTES_PER_EVENT = 512;

/** Events of a call that carry more than IDs (scheduled, completed or failed, per round). */
const CALL_EVENTS_WITH_BYTES = 12;

/**
 * A call's result, reserved at this size until it is known (history then counts it, and the
 * margin under Temporal's limit takes a result larger than this).
 */
export const RESULT_ALLOWANCE = 16 * KiB;

/**
 * The size of a value as the data converter writes it (JSON, UTF-8), without allocating a
 * buffer; undefined is empty. A bigint (an Avro long) counts as its digits.
 */
export function payloadBytes(value: unknown): number {
  if (value === undefined) return 0;
  const json = JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'bigint' ? v.toString() : v,
  );
  if (json === undefined) return 0;
  let bytes = json.length;
  // Non-ASCII characters take more than one byte: count them without encoding the string.
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c > 0x7f) bytes += c > 0x7ff && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

/** What one call may still write over its life, given its input's size. */
export function callReserve(inputBytes: number): Usage {
  return {
    events: EVENTS_PER_CALL,
    // Its input is scheduled again by the waiting round and by an operator's retry.
    bytes: CALL_EVENTS_WITH_BYTES * BYTES_PER_EVENT + 3 * inputBytes + RESULT_ALLOWANCE,
  };
}

/** What a parked call may still write before an operator acts: its Step and memo changes. */
export const PARKED_RESERVE: Usage = { events: 4, bytes: 4 * BYTES_PER_EVENT };

/** What the run's ending may write besides its undos: the settlement and the close. */
export const ENDING_RESERVE: Usage = callReserve(2 * KiB);

const plus = (a: Usage, b: Usage): Usage => ({
  events: a.events + b.events,
  bytes: a.bytes + b.bytes,
});

/** Which limit `usage` passes of `line`, as words, or undefined. */
function passes(usage: Usage, line: Usage): string | undefined {
  if (usage.events > line.events)
    return `${usage.events} events with what it may still need, over ${line.events}`;
  if (usage.bytes > line.bytes)
    return `${(usage.bytes / MiB).toFixed(1)} MiB with what it may still need, over ${line.bytes / MiB} MiB`;
  return undefined;
}

/** What a run's history holds now, as Temporal counts it. */
export interface HistoryReading {
  historyLength: number;
  historySize: number;
}

/** The reason every budget refusal starts with (the park's cause, the ending's outcome). */
export const HISTORY_BUDGET = 'history-budget';

/**
 * One run's budget: `reserved` says what the run may still write (its calls in flight, its owed
 * undos); each check reads Temporal's count afresh.
 */
export function createBudget(read: () => HistoryReading, reserved: () => Usage) {
  const now = (): Usage => {
    const info = read();
    return plus({ events: info.historyLength, bytes: info.historySize }, reserved());
  };
  return {
    /** Used and reserved now. */
    now,
    /** Why a forward action costing `cost` may not start, or undefined. */
    forwardRefusal(cost: Usage): string | undefined {
      const over = passes(plus(now(), cost), FORWARD_BUDGET);
      return over === undefined
        ? undefined
        : `${HISTORY_BUDGET}: the run's history would pass its forward budget (${over}), which keeps room to unwind under Temporal's limits (${TEMPORAL_LIMITS.events} events, ${TEMPORAL_LIMITS.bytes / MiB} MB): resolve or cancel; a body that loops checkpoints before this`;
    },
    /** Why an operator retry costing `cost` is refused, or undefined. */
    retryRefusal(cost: Usage): string | undefined {
      const over = passes(plus(now(), cost), RETRY_BUDGET);
      return over === undefined
        ? undefined
        : `${HISTORY_BUDGET}: another retry could leave no room for the unwind under Temporal's limits (${over}): resolve or cancel`;
    },
    /** Why the run must end and unwind now, or undefined. */
    lastLine(): string | undefined {
      const over = passes(now(), LAST_LINE);
      return over === undefined
        ? undefined
        : `${HISTORY_BUDGET}: the run's history reached its last line (${over}) through what it cannot refuse (signals, cancels, workflow tasks); it unwinds while Temporal's limits still leave room`;
    },
    /** Whether a checkpoint continues as new now. */
    checkpointDue(suggested: boolean): boolean {
      return suggested || passes(now(), CHECKPOINT_LINE) !== undefined;
    },
  };
}

export type Budget = ReturnType<typeof createBudget>;

/** Why a payload may not travel (too large), naming what carries it, or undefined. */
export function payloadRefusal(what: string, bytes: number): string | undefined {
  if (bytes <= MAX_PAYLOAD_BYTES) return undefined;
  return `${what} is ${(bytes / KiB).toFixed(0)} KiB of JSON, over the ${MAX_PAYLOAD_BYTES / KiB} KiB a call may carry (Temporal fails a workflow task over ${TEMPORAL_LIMITS.payloadBytes / MiB} MB): pass a reference (an ID, a URL) instead of the data`;
}
