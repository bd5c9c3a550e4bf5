import type { DlqReplayMark } from '../db/dlq-replay-store';
import type { DlqEntry } from '../kafka/dlq-reader';

/** Why an entry is not replayed; it gets no mark, so a later run offers it again. */
export type RefusalKind = 'no-source' | 'foreign-topic' | 'stub';

/** An entry `dlq replay` will not send, and why (printed to the operator). */
export interface RefusedEntry {
  entry: DlqEntry;
  kind: RefusalKind;
  refusal: string;
}

/** What one run of `dlq replay` does with the entries it read. */
export interface ReplayPlan {
  /** To send, in DLQ order; `resend`: an earlier send of it was never confirmed. */
  send: Array<{ entry: DlqEntry; resend: boolean }>;
  /** Sent (or adopted) before: never again. */
  already: DlqEntry[];
  refused: RefusedEntry[];
}

/**
 * Sorts entries into sent before, to send, and refused. An entry whose mark is `sending` was
 * begun but never confirmed (a crash, a failure between the send and the mark): it is sent
 * again, which is harmless because the bridge derives the same identity from the same key,
 * headers and value and deduplicates it (docs/operations.md, "The DLQ"). Only source topics
 * in KAFKA_TOPICS are written to: `dlq-source-topic` is whatever the DLQ record says, and
 * anyone who can write to the DLQ can set it. Pure.
 */
export function planReplay(
  entries: readonly DlqEntry[],
  markOf: (entry: DlqEntry) => DlqReplayMark | undefined,
  allowed: ReadonlySet<string>,
): ReplayPlan {
  const plan: ReplayPlan = { send: [], already: [], refused: [] };
  for (const entry of entries) {
    const mark = markOf(entry);
    if (mark !== undefined && mark.state !== 'sending') plan.already.push(entry);
    else if (!entry.sourceTopic)
      plan.refused.push({
        entry,
        kind: 'no-source',
        refusal: 'no dlq-source-topic header: nowhere to replay it',
      });
    else if (!allowed.has(entry.sourceTopic))
      plan.refused.push({
        entry,
        kind: 'foreign-topic',
        refusal: `source topic ${entry.sourceTopic} is not in KAFKA_TOPICS`,
      });
    else plan.send.push({ entry, resend: mark !== undefined });
  }
  return plan;
}
