import type { Kafka } from 'kafkajs';
import type pg from 'pg';
import {
  adoptReplayMarks,
  entryKey,
  isMarkOf,
  listReplayMarks,
  type DlqReplayMark,
} from '../db/dlq-replay-store';
import type { DlqEntry } from '../kafka/dlq-reader';

/**
 * What `dlq replay` has already replayed: the per-entry marks in Postgres (dlq-replay-store.ts),
 * plus, for an upgrade, the marks the earlier CLI kept in Kafka.
 *
 * The earlier CLI kept them as the committed offsets of member-less consumer groups, one per
 * reason filter (`<KAFKA_GROUP_ID>.dlq-replayed.<reason>`, `*` for an unfiltered replay), at
 * the end of each replayed snapshot. Kafka drops such offsets `offsets.retention.minutes`
 * (default 7 days) after their last commit, well inside the DLQ's 30-day retention, so old
 * entries came back. Whatever those groups still hold is copied into Postgres as `adopted`
 * the first time an entry is seen below one; from then on Kafka's expiry no longer matters.
 * Only entries the earlier CLI could have sent are adopted (a source topic in KAFKA_TOPICS):
 * its marks also covered the entries it refused, which were never sent.
 */

/** The earlier CLI's consumer group for a reason filter (read only, for the upgrade). */
export function replayGroupId(bridgeGroupId: string, reason: string | undefined): string {
  return `${bridgeGroupId}.dlq-replayed.${reason ?? '*'}`;
}

/** Per reason filter, the committed offsets of its old group on `dlqTopic`. */
async function readGroupMarks(
  kafka: Kafka,
  bridgeGroupId: string,
  dlqTopic: string,
  reasons: ReadonlySet<string | undefined>,
): Promise<Map<string, Map<number, bigint>>> {
  const out = new Map<string, Map<number, bigint>>();
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const reason of new Set([undefined, ...reasons])) {
      const groupId = replayGroupId(bridgeGroupId, reason);
      const [entry] = await admin.fetchOffsets({ groupId, topics: [dlqTopic] });
      const ends = new Map<number, bigint>();
      for (const p of entry?.partitions ?? []) {
        if (BigInt(p.offset) >= 0n) ends.set(p.partition, BigInt(p.offset));
      }
      if (ends.size > 0) out.set(groupId, ends);
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

/** Where the replay marks are and which entries may be adopted from the old groups. */
export interface ReplayMarkSources {
  pool: pg.Pool;
  kafka: Kafka;
  /** KAFKA_GROUP_ID: the prefix of the old groups. */
  bridgeGroupId: string;
  /** KAFKA_TOPICS: only entries the earlier CLI could have sent are adopted. */
  allowed: ReadonlySet<string>;
}

/** The marks of a set of entries. */
export interface ReplayMarks {
  /** The entry's mark; undefined when it was never replayed. */
  of(entry: DlqEntry): DlqReplayMark | undefined;
  /** Entries adopted from the old consumer-group marks by this call. */
  adopted: number;
}

/**
 * The marks of `entries` (all from `dlqTopics`), after copying into Postgres whatever old
 * consumer-group marks cover entries that have no mark yet.
 */
export async function loadReplayMarks(
  sources: ReplayMarkSources,
  dlqTopics: readonly string[],
  entries: readonly DlqEntry[],
): Promise<ReplayMarks> {
  const read = async () => {
    const marks = new Map<string, DlqReplayMark>();
    for (const m of await listReplayMarks(sources.pool, dlqTopics)) marks.set(entryKey(m), m);
    return (e: DlqEntry) => {
      const mark = marks.get(entryKey(e));
      return mark && isMarkOf(mark, e) ? mark : undefined;
    };
  };
  let of = await read();
  let adopted = 0;
  for (const dlqTopic of dlqTopics) {
    const unmarked = entries.filter(
      (e) =>
        e.dlqTopic === dlqTopic &&
        of(e) === undefined &&
        e.sourceTopic !== undefined &&
        sources.allowed.has(e.sourceTopic),
    );
    if (unmarked.length === 0) continue;
    const groups = await readGroupMarks(
      sources.kafka,
      sources.bridgeGroupId,
      dlqTopic,
      new Set(unmarked.map((e) => e.reason)),
    );
    // The group that covered each entry: its reason's, else the unfiltered one.
    const covered = new Map<string, DlqEntry[]>();
    for (const e of unmarked) {
      const candidates = [
        replayGroupId(sources.bridgeGroupId, e.reason),
        replayGroupId(sources.bridgeGroupId, undefined),
      ];
      const groupId = candidates.find(
        (g) => BigInt(e.offset) < (groups.get(g)?.get(e.partition) ?? 0n),
      );
      if (groupId === undefined) continue;
      const list = covered.get(groupId) ?? [];
      list.push(e);
      covered.set(groupId, list);
    }
    for (const [groupId, list] of covered) {
      adopted += await adoptReplayMarks(
        sources.pool,
        list.map((e) => ({ ...e, targetTopic: e.sourceTopic })),
        `consumer group ${groupId}`,
      );
    }
  }
  if (adopted > 0) of = await read();
  return { of, adopted };
}
