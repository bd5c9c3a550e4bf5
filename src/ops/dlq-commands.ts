import { hostname, userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { dlqTopicOf, isDlqTopic } from '../events/dlq-topic';
import { confirmAction } from './confirm';
import type { OpsContext } from './context';
import { readDlq, replayHeaders, type DlqEntry } from '../events/dlq-reader';
import { markReplayed, readReplayMarks } from './dlq-replay-marks';
import {
  createProgress,
  EXIT,
  formatTable,
  inert,
  parsePositiveInt,
  UsageError,
  type CommandResult,
} from './output';

/** Messages sent per produce call during a replay. */
const REPLAY_BATCH = 100;

/** The DLQ topics in scope: `--topic` (a source topic) or every configured KAFKA_TOPICS. */
function dlqTopics(ctx: OpsContext, topic: string | undefined): string[] {
  if (topic !== undefined) {
    if (isDlqTopic(topic)) throw new UsageError('--topic names the source topic, not its DLQ');
    return [dlqTopicOf(topic)];
  }
  return ctx.config.kafka.topics.map(dlqTopicOf);
}

async function readAll(ctx: OpsContext, topic?: string, reason?: string): Promise<DlqEntry[]> {
  const out: DlqEntry[] = [];
  for (const t of dlqTopics(ctx, topic)) out.push(...(await readDlq(ctx.kafkaClient(), t)));
  return reason === undefined ? out : out.filter((e) => e.reason === reason);
}

/** The JSON view of an entry: text key/value, headers as strings, no raw buffers. */
function describeEntry(e: DlqEntry) {
  return {
    dlqTopic: e.dlqTopic,
    partition: e.partition,
    offset: e.offset,
    timestamp: e.timestamp,
    key: e.key?.toString('utf8') ?? null,
    reason: e.reason,
    error: e.error,
    sourceTopic: e.sourceTopic,
    sourcePartition: e.sourcePartition,
    sourceOffset: e.sourceOffset,
    firstFailedAt: e.firstFailedAt,
    failureCount: e.failureCount,
    valueBytes: e.value?.length ?? 0,
  };
}

const OPTIONS = {
  reason: { type: 'string' },
  topic: { type: 'string' },
} as const;

/** `dlq list [--reason R] [--topic T] [--limit N]` */
export async function listDlq(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { values } = parseArgs({
    args: argv,
    options: { ...OPTIONS, limit: { type: 'string' } },
    strict: true,
  });
  const limit = parsePositiveInt(values.limit, '--limit', 100);
  const all = await readAll(ctx, values.topic, values.reason);
  const messages = all.slice(0, limit).map(describeEntry);
  const byReason: Record<string, number> = {};
  for (const e of all) byReason[e.reason ?? '?'] = (byReason[e.reason ?? '?'] ?? 0) + 1;
  return {
    json: { total: all.length, byReason, messages },
    human: [
      formatTable(
        ['DLQ', 'PART', 'OFFSET', 'KEY', 'REASON', 'FIRST FAILED', 'N', 'ERROR'],
        messages.map((m) => [
          m.dlqTopic,
          m.partition,
          m.offset,
          m.key ?? undefined,
          m.reason,
          m.firstFailedAt,
          m.failureCount,
          (m.error ?? '').slice(0, 60),
        ]),
      ),
      `${all.length} message(s)${all.length > limit ? `, first ${limit} shown` : ''} · ` +
        inert(
          Object.entries(byReason)
            .map(([r, n]) => `${r}: ${n}`)
            .join(', '),
        ),
    ].join('\n'),
  };
}

/** Header a replayed message carries: which DLQ entry it came from (`topic/partition/offset`). */
export const REPLAY_OF_HEADER = 'onceflow-replay-of';

/** Who runs the command, for the audit line. */
function operatorName(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}@${hostname()}`;
  }
}

function countBy(entries: DlqEntry[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) out[e.reason ?? '?'] = (out[e.reason ?? '?'] ?? 0) + 1;
  return out;
}

/**
 * `dlq replay [--reason R] [--topic T] [--dry-run] [--yes]`: republishes each DLQ entry not
 * replayed before to its source topic, with the original key and headers plus
 * `onceflow-replay-of`. Safe to run twice: what a run replayed is marked in Kafka
 * (dlq-replay-marks.ts), so the next run offers only newer entries, and a still-poison
 * entry that fails again is one new entry, not a doubling. Only topics in KAFKA_TOPICS are
 * written to: an entry naming another topic in `dlq-source-topic` (anyone who can write to
 * the DLQ can set it) is refused. Asks before sending unless `--yes`; prints and logs an
 * audit line (who, how many, which reasons).
 */
export async function replayDlq(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { values } = parseArgs({
    args: argv,
    options: { ...OPTIONS, 'dry-run': { type: 'boolean' }, yes: { type: 'boolean' } },
    strict: true,
  });
  const kafka = ctx.kafkaClient();
  const groupId = ctx.config.kafka.groupId;
  const allowed = new Set(ctx.config.kafka.topics);
  const snapshots: Array<{ dlqTopic: string; ends: ReadonlyMap<number, bigint> }> = [];
  const fresh: DlqEntry[] = [];
  let alreadyReplayed = 0;
  for (const dlqTopic of dlqTopics(ctx, values.topic)) {
    let ends: ReadonlyMap<number, bigint> = new Map();
    const all = await readDlq(kafka, dlqTopic, { onEnds: (e) => (ends = e) });
    snapshots.push({ dlqTopic, ends });
    const matching =
      values.reason === undefined ? all : all.filter((e) => e.reason === values.reason);
    const marks = await readReplayMarks(
      kafka,
      groupId,
      dlqTopic,
      new Set(matching.map((e) => e.reason)),
    );
    for (const e of matching) {
      if (BigInt(e.offset) < marks(e.reason, e.partition)) alreadyReplayed++;
      else fresh.push(e);
    }
  }
  const unroutable = fresh.filter((e) => !e.sourceTopic);
  const foreign = fresh.filter((e) => e.sourceTopic && !allowed.has(e.sourceTopic));
  const routable = fresh.filter((e) => e.sourceTopic && allowed.has(e.sourceTopic));
  const plan = routable.map((e) => ({ ...describeEntry(e), replayTo: e.sourceTopic! }));
  const dryRun = values['dry-run'] ?? false;
  let cancelled = false;
  if (!dryRun && routable.length > 0) {
    const targets = [...new Set(routable.map((e) => e.sourceTopic!))].join(', ');
    cancelled = !(await confirmAction(
      `Replay ${routable.length} message(s) to ${targets}?`,
      values.yes === true,
    ));
  }
  const live = !dryRun && !cancelled;
  if (live && routable.length > 0) {
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const progress = createProgress('replaying', routable.length, { every: 100 });
    try {
      for (let i = 0; i < routable.length; i += REPLAY_BATCH) {
        const batch = routable.slice(i, i + REPLAY_BATCH);
        await producer.sendBatch({
          acks: -1,
          topicMessages: [...groupByTopic(batch)].map(([topic, list]) => ({
            topic,
            messages: list.map((e) => ({
              key: e.key,
              value: e.value,
              headers: {
                ...replayHeaders(e.headers),
                [REPLAY_OF_HEADER]: `${e.dlqTopic}/${e.partition}/${e.offset}`,
              },
            })),
          })),
        });
        progress.update(i + batch.length);
      }
    } finally {
      await producer.disconnect();
    }
  }
  // Marked only after every send succeeded: a failed run is repeated whole (the bridge
  // deduplicates what it already started), never half-forgotten.
  if (live) {
    for (const { dlqTopic, ends } of snapshots) {
      await markReplayed(kafka, groupId, values.reason, dlqTopic, ends);
    }
  }
  const replayed = live ? routable.length : 0;
  const audit = {
    by: operatorName(),
    replayed,
    reasons: countBy(live ? routable : []),
    dryRun,
    cancelled,
    alreadyReplayed,
    refusedForeignTopic: foreign.length,
    skippedWithoutSource: unroutable.length,
    dlqTopics: snapshots.map((x) => x.dlqTopic),
  };
  // The audit line goes to stderr as a JSON log line too, so it lands in whatever collects logs.
  process.stderr.write(
    `${JSON.stringify({ level: 30, time: Date.now(), name: 'ops', msg: 'dlq replay', ...audit })}\n`,
  );
  const verb = dryRun ? 'would replay' : cancelled ? 'cancelled; would have replayed' : 'replayed';
  const reasons = inert(
    Object.entries(countBy(routable))
      .map(([r, n]) => `${r}: ${n}`)
      .join(', '),
  );
  return {
    json: {
      ...audit,
      matched: fresh.length + alreadyReplayed,
      refused: foreign.map(describeEntry),
      messages: plan,
    },
    human: [
      formatTable(
        ['DLQ', 'PART', 'OFFSET', 'KEY', 'REASON', 'TO'],
        plan.map((m) => [
          m.dlqTopic,
          m.partition,
          m.offset,
          m.key ?? undefined,
          m.reason,
          m.replayTo,
        ]),
      ),
      `audit: ${audit.by} ${verb} ${routable.length} message(s)${reasons ? ` (${reasons})` : ''}` +
        (alreadyReplayed ? `; ${alreadyReplayed} replayed before, skipped` : '') +
        (foreign.length
          ? `; ${foreign.length} refused: source topic not in KAFKA_TOPICS (${inert([...new Set(foreign.map((e) => e.sourceTopic))].join(', '))})`
          : '') +
        (unroutable.length ? `; ${unroutable.length} without dlq-source-topic skipped` : ''),
    ].join('\n'),
    exitCode: cancelled ? EXIT.failure : undefined,
  };
}

function groupByTopic(entries: DlqEntry[]): Map<string, DlqEntry[]> {
  const out = new Map<string, DlqEntry[]>();
  for (const e of entries) {
    const list = out.get(e.sourceTopic!) ?? [];
    list.push(e);
    out.set(e.sourceTopic!, list);
  }
  return out;
}
