import type pg from 'pg';
import { schemaOfPool } from './pool';

/**
 * What `dlq replay` sent, table `dlq_replays` (migration 0007): one row per DLQ entry, unique
 * on the entry's coordinates (DLQ topic, partition, offset). The only code that queries the
 * table. Unqualified table name: the pool's search_path (DATABASE_SCHEMA) picks the schema, as
 * for the order claims.
 *
 * A send is recorded in two steps around the produce call: `beginReplays` writes `sending`
 * before, `confirmReplays` turns it into `sent` after the broker acknowledged. A `sending` row
 * found later is a send that may or may not have reached Kafka (a crash, a failure, a lost
 * acknowledgement); the replay command sends it again (docs/operations.md, "The DLQ").
 */

type Db = pg.Pool | pg.PoolClient;

/** Where a mark came from and how far its send got. */
export type DlqReplayState = 'sending' | 'sent' | 'adopted';

/** What was sent for an entry: the DLQ record, or a stub's original read from its source. */
export type DlqReplaySent = 'entry' | 'original';

/** One DLQ entry, as the table keys it. */
export interface DlqEntryRef {
  dlqTopic: string;
  partition: number;
  /** Kafka offset (int64 as a string). */
  offset: string;
  /** The DLQ record's timestamp (ISO); tells the entry from one of an earlier, deleted topic. */
  timestamp: string;
}

/** What a replay (or the adoption of an old mark) records about one entry. */
export interface DlqReplayWrite extends DlqEntryRef {
  /** The source topic the entry goes (or went) to. */
  targetTopic?: string;
  /** The entry's dlq-reason. */
  reason?: string;
}

/** One row. */
export interface DlqReplayMark extends DlqEntryRef {
  state: DlqReplayState;
  /** Null for adopted marks: the old consumer-group marks did not say. */
  sent: DlqReplaySent | null;
  targetTopic: string | null;
  reason: string | null;
  /** `--by` (or the OS user); for adopted marks, the consumer group they came from. */
  by: string;
  /** When the row was last written: the send began, or the old mark was adopted. */
  recordedAt: string;
  /** When the broker acknowledged the send. */
  sentAt: string | null;
  /** Sends begun: above 1 after an unconfirmed send was resumed. */
  attempts: number;
}

/** A statement on dlq_replays failed; names the operation and, when it is missing, the fix. */
export class DlqReplayStoreError extends Error {
  override readonly name = 'DlqReplayStoreError';
  constructor(operation: string, schema: string | undefined, cause: unknown) {
    const code = (cause as { code?: unknown })?.code;
    const where = schema ? ` in schema ${schema}` : '';
    super(
      code === '42P01'
        ? `dlq replay marks: table dlq_replays does not exist${where}; apply the migrations (npm run setup) first`
        : `dlq replay marks: ${operation}${where} failed: ${(cause as Error)?.message ?? cause}`,
      { cause },
    );
  }
}

/** The key of an entry in maps: `topic/partition/offset`, the form of `onceflow-replay-of`. */
export function entryKey(ref: Pick<DlqEntryRef, 'dlqTopic' | 'partition' | 'offset'>): string {
  return `${ref.dlqTopic}/${ref.partition}/${ref.offset}`;
}

/** A mark belongs to this entry, not to an entry of an earlier topic at the same offset. */
export function isMarkOf(mark: DlqReplayMark, entry: DlqEntryRef): boolean {
  return (
    entryKey(mark) === entryKey(entry) && Date.parse(mark.timestamp) === Date.parse(entry.timestamp)
  );
}

interface Row {
  dlq_topic: string;
  dlq_partition: number;
  dlq_offset: string;
  entry_timestamp: Date;
  state: DlqReplayState;
  sent_what: DlqReplaySent | null;
  target_topic: string | null;
  reason: string | null;
  replayed_by: string;
  recorded_at: Date;
  sent_at: Date | null;
  attempts: number;
}

const COLUMNS = `dlq_topic, dlq_partition, dlq_offset::text AS dlq_offset, entry_timestamp, state,
  sent_what, target_topic, reason, replayed_by, recorded_at, sent_at, attempts`;

function toMark(r: Row): DlqReplayMark {
  return {
    dlqTopic: r.dlq_topic,
    partition: r.dlq_partition,
    offset: r.dlq_offset,
    timestamp: r.entry_timestamp.toISOString(),
    state: r.state,
    sent: r.sent_what,
    targetTopic: r.target_topic,
    reason: r.reason,
    by: r.replayed_by,
    recordedAt: r.recorded_at.toISOString(),
    sentAt: r.sent_at?.toISOString() ?? null,
    attempts: r.attempts,
  };
}

async function run<T extends pg.QueryResultRow>(
  db: Db,
  operation: string,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<T>> {
  try {
    return await db.query<T>(text, values);
  } catch (err) {
    throw new DlqReplayStoreError(operation, schemaOfPool(db as pg.Pool), err);
  }
}

/** Column arrays of entry refs, for `unnest`: one statement for a whole batch. */
function columns(refs: readonly DlqReplayWrite[]) {
  return [
    refs.map((r) => r.dlqTopic),
    refs.map((r) => r.partition),
    refs.map((r) => r.offset),
    refs.map((r) => r.timestamp),
    refs.map((r) => r.targetTopic ?? null),
    refs.map((r) => r.reason ?? null),
  ];
}

/** Every mark of the DLQ topics. */
export async function listReplayMarks(
  db: Db,
  dlqTopics: readonly string[],
): Promise<DlqReplayMark[]> {
  const { rows } = await run<Row>(
    db,
    'list',
    `SELECT ${COLUMNS} FROM dlq_replays WHERE dlq_topic = ANY($1::text[])`,
    [dlqTopics],
  );
  return rows.map(toMark);
}

/**
 * Records that the entries are about to be sent (`sending`), before the produce call. Returns
 * the entries this call may send: new ones, ones whose earlier send was never confirmed
 * (attempts counts up), and ones whose mark belongs to an earlier topic at the same offset.
 * An entry already `sent` or `adopted` is left alone and not returned: never sent twice.
 */
export async function beginReplays(
  db: Db,
  entries: ReadonlyArray<DlqReplayWrite & { sent: DlqReplaySent }>,
  by: string,
): Promise<DlqReplayMark[]> {
  if (entries.length === 0) return [];
  const { rows } = await run<Row>(
    db,
    'begin',
    `INSERT INTO dlq_replays AS r (dlq_topic, dlq_partition, dlq_offset, entry_timestamp, state,
       sent_what, target_topic, reason, replayed_by)
     SELECT t, p, o, ts, 'sending', w, tt, rs, $8
       FROM unnest($1::text[], $2::int[], $3::bigint[], $4::timestamptz[], $5::text[],
                   $6::text[], $7::text[]) AS u(t, p, o, ts, tt, rs, w)
     ON CONFLICT ON CONSTRAINT dlq_replays_entry_key DO UPDATE SET
       attempts = CASE WHEN r.entry_timestamp = EXCLUDED.entry_timestamp
                       THEN r.attempts + 1 ELSE 1 END,
       entry_timestamp = EXCLUDED.entry_timestamp, state = 'sending',
       sent_what = EXCLUDED.sent_what, target_topic = EXCLUDED.target_topic,
       reason = EXCLUDED.reason, replayed_by = EXCLUDED.replayed_by,
       recorded_at = now(), sent_at = NULL
     WHERE r.state = 'sending' OR r.entry_timestamp <> EXCLUDED.entry_timestamp
     RETURNING ${COLUMNS}`,
    [...columns(entries), entries.map((e) => e.sent), by],
  );
  return rows.map(toMark);
}

/** The broker acknowledged these entries: `sending` becomes `sent`. Returns how many. */
export async function confirmReplays(db: Db, refs: readonly DlqEntryRef[]): Promise<number> {
  if (refs.length === 0) return 0;
  const [topics, partitions, offsets] = columns(refs);
  const { rowCount } = await run(
    db,
    'confirm',
    `UPDATE dlq_replays AS r SET state = 'sent', sent_at = now()
       FROM unnest($1::text[], $2::int[], $3::bigint[]) AS u(t, p, o)
      WHERE r.dlq_topic = u.t AND r.dlq_partition = u.p AND r.dlq_offset = u.o
        AND r.state = 'sending'`,
    [topics, partitions, offsets],
  );
  return rowCount ?? 0;
}

/**
 * The broker refused these entries outright (nothing was appended): their first `sending`
 * mark is taken back, so they are offered again. A mark of an entry sent before (attempts > 1)
 * stays: an earlier attempt may have reached Kafka.
 */
export async function withdrawReplays(db: Db, refs: readonly DlqEntryRef[]): Promise<number> {
  if (refs.length === 0) return 0;
  const [topics, partitions, offsets] = columns(refs);
  const { rowCount } = await run(
    db,
    'withdraw',
    `DELETE FROM dlq_replays AS r
      USING unnest($1::text[], $2::int[], $3::bigint[]) AS u(t, p, o)
      WHERE r.dlq_topic = u.t AND r.dlq_partition = u.p AND r.dlq_offset = u.o
        AND r.state = 'sending' AND r.attempts = 1`,
    [topics, partitions, offsets],
  );
  return rowCount ?? 0;
}

/**
 * Records entries the earlier CLI had replayed (its consumer-group marks) as `adopted`, by
 * `by` (the group). An entry that has a row already keeps it. Returns how many were adopted.
 */
export async function adoptReplayMarks(
  db: Db,
  entries: readonly DlqReplayWrite[],
  by: string,
): Promise<number> {
  if (entries.length === 0) return 0;
  const { rowCount } = await run(
    db,
    'adopt',
    `INSERT INTO dlq_replays (dlq_topic, dlq_partition, dlq_offset, entry_timestamp, state,
       target_topic, reason, replayed_by)
     SELECT t, p, o, ts, 'adopted', tt, rs, $7
       FROM unnest($1::text[], $2::int[], $3::bigint[], $4::timestamptz[], $5::text[],
                   $6::text[]) AS u(t, p, o, ts, tt, rs)
     ON CONFLICT ON CONSTRAINT dlq_replays_entry_key DO NOTHING`,
    [...columns(entries), by],
  );
  return rowCount ?? 0;
}

/** A DLQ partition whose marks `dlq reap` weighs against what Kafka still holds. */
export interface MarkedPartition {
  dlqTopic: string;
  partition: number;
}

/** The DLQ partitions of `dlqTopics` that have marks. */
export async function listMarkedPartitions(
  db: Db,
  dlqTopics: readonly string[],
): Promise<MarkedPartition[]> {
  const { rows } = await run<{ dlq_topic: string; dlq_partition: number }>(
    db,
    'list partitions',
    `SELECT DISTINCT dlq_topic, dlq_partition FROM dlq_replays WHERE dlq_topic = ANY($1::text[])
      ORDER BY dlq_topic, dlq_partition`,
    [dlqTopics],
  );
  return rows.map((r) => ({ dlqTopic: r.dlq_topic, partition: r.dlq_partition }));
}

/**
 * Drops the marks of entries Kafka no longer holds: in each partition, those below `earliest`
 * (its first offset still on the topic; null when the topic is gone). No replay can read such
 * an entry again, so its mark guards nothing. A `sending` mark stays: it records a send that
 * was never confirmed, which an operator still has to weigh. Returns how many were dropped.
 */
export async function reapReplayMarks(
  db: Db,
  bounds: ReadonlyArray<MarkedPartition & { earliest: string | null }>,
): Promise<number> {
  if (bounds.length === 0) return 0;
  const { rowCount } = await run(
    db,
    'reap',
    `DELETE FROM dlq_replays AS r
      USING unnest($1::text[], $2::int[], $3::bigint[]) AS u(t, p, earliest)
      WHERE r.dlq_topic = u.t AND r.dlq_partition = u.p
        AND (u.earliest IS NULL OR r.dlq_offset < u.earliest) AND r.state <> 'sending'`,
    [bounds.map((b) => b.dlqTopic), bounds.map((b) => b.partition), bounds.map((b) => b.earliest)],
  );
  return rowCount ?? 0;
}

// One replay at a time per schema: a session-level advisory lock, released by unlockReplays or
// by Postgres when the session ends (a killed CLI holds nothing). Keyed on the search_path,
// which names the schema whose dlq_replays the session writes.
const LOCK_KEY = `hashtext('onceflow-dlq-replay:' || current_setting('search_path'))`;

/** Takes the replay lock on this session's schema; false when another replay holds it. */
export async function tryLockReplays(client: pg.PoolClient): Promise<boolean> {
  const { rows } = await run<{ locked: boolean }>(
    client,
    'lock',
    `SELECT pg_try_advisory_lock(${LOCK_KEY}) AS locked`,
    [],
  );
  return rows[0]?.locked === true;
}

/** Releases the lock tryLockReplays took on this session. */
export async function unlockReplays(client: pg.PoolClient): Promise<void> {
  await run(client, 'unlock', `SELECT pg_advisory_unlock(${LOCK_KEY})`, []);
}
