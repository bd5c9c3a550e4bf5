import { parseArgs } from 'node:util';
import { dlqTopicOf } from '../config';
import type { OpsContext } from './context';
import { readDlq, replayHeaders, type DlqEntry } from './dlq-reader';
import {
  createProgress,
  formatTable,
  parsePositiveInt,
  UsageError,
  type CommandResult,
} from './output';

/** Messages sent per produce call during a replay. */
const REPLAY_BATCH = 100;

/** The DLQ topics in scope: `--topic` (a source topic) or every configured KAFKA_TOPICS. */
function dlqTopics(ctx: OpsContext, topic: string | undefined): string[] {
  if (topic !== undefined) {
    if (topic.endsWith('.dlq')) throw new UsageError('--topic names the source topic, not its DLQ');
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
        Object.entries(byReason)
          .map(([r, n]) => `${r}: ${n}`)
          .join(', '),
    ].join('\n'),
  };
}

/**
 * `dlq replay [--reason R] [--topic T] [--dry-run]`: republishes to the source topic with the
 * original key and headers. Safe to run twice: the bridge derives the same identity from the
 * same headers and deduplicates whatever was already started; what is still poison lands in
 * the DLQ again with its first-failure time and a higher count.
 */
export async function replayDlq(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { values } = parseArgs({
    args: argv,
    options: { ...OPTIONS, 'dry-run': { type: 'boolean' } },
    strict: true,
  });
  const entries = await readAll(ctx, values.topic, values.reason);
  const unroutable = entries.filter((e) => !e.sourceTopic);
  const routable = entries.filter((e) => e.sourceTopic);
  const plan = routable.map((e) => ({ ...describeEntry(e), replayTo: e.sourceTopic! }));
  const dryRun = values['dry-run'] ?? false;
  if (!dryRun && routable.length > 0) {
    const producer = ctx.kafkaClient().producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const progress = createProgress('replaying', routable.length);
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
              headers: replayHeaders(e.headers),
            })),
          })),
        });
        progress.update(i + batch.length);
      }
    } finally {
      await producer.disconnect();
    }
  }
  const verb = dryRun ? 'would replay' : 'replayed';
  return {
    json: {
      dryRun,
      replayed: dryRun ? 0 : routable.length,
      matched: entries.length,
      skippedWithoutSource: unroutable.length,
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
      `${verb} ${routable.length} message(s)` +
        (unroutable.length ? `; ${unroutable.length} without dlq-source-topic skipped` : ''),
    ].join('\n'),
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
