import type { DlqReplayMark } from '../db/dlq-replay-store';
import type { DlqEntry } from '../kafka/dlq-reader';
import { parseArgsOrUsage } from '../util/usage-error';
import type { OpsContext } from './context';
import {
  countBy,
  describeEntry,
  describeMark,
  dlqTopics,
  readEntries,
  replayedCell,
} from './dlq-entries';
import { loadReplayMarks } from './dlq-replay-marks';
import { formatTable, inert, parsePositiveInt, type CommandResult } from './output';

export { replayDlq } from './dlq-replay';

/**
 * `dlq list [--reason R] [--topic T] [--limit N]`: counts by reason and the entries, each with
 * its replay mark (when, by whom, what was sent). Reading the marks also copies the earlier
 * CLI's consumer-group marks into Postgres before Kafka expires them (dlq-replay-marks.ts).
 * Without Postgres the entries are still listed, with a warning instead of their marks.
 */
export async function listDlq(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { values } = parseArgsOrUsage({
    args: argv,
    options: { reason: { type: 'string' }, topic: { type: 'string' }, limit: { type: 'string' } },
    strict: true,
  });
  const limit = parsePositiveInt(values.limit, '--limit', 100);
  const topics = dlqTopics(ctx, values.topic);
  const all = await readEntries(ctx, topics, values.reason);
  let markOf: (e: DlqEntry) => DlqReplayMark | undefined = () => undefined;
  let marksError: string | undefined;
  try {
    const marks = await loadReplayMarks(
      {
        pool: ctx.db(),
        kafka: ctx.kafkaClient(),
        bridgeGroupId: ctx.config.kafka.groupId,
        allowed: new Set(ctx.config.kafka.topics),
      },
      topics,
      all,
    );
    markOf = marks.of;
  } catch (err) {
    marksError = (err as Error).message;
    process.stderr.write(`onceflow: replay marks unavailable: ${inert(marksError)}\n`);
  }
  const shown = all.slice(0, limit);
  const messages = shown.map((e) => ({ ...describeEntry(e), replay: describeMark(markOf(e)) }));
  const byReason = countBy(all);
  const states = all.map((e) => markOf(e)?.state);
  const replayed = states.filter((s) => s === 'sent' || s === 'adopted').length;
  const unconfirmed = states.filter((s) => s === 'sending').length;
  return {
    json: {
      total: all.length,
      byReason,
      replayed,
      unconfirmed,
      ...(marksError ? { replayMarksError: marksError } : {}),
      messages,
    },
    human: [
      formatTable(
        ['DLQ', 'PART', 'OFFSET', 'KEY', 'REASON', 'FIRST FAILED', 'N', 'REPLAYED', 'BY', 'ERROR'],
        shown.map((e) => [
          e.dlqTopic,
          e.partition,
          e.offset,
          e.key?.toString('utf8'),
          e.stub ? `${e.reason ?? '?'} (stub)` : e.reason,
          e.firstFailedAt,
          e.failureCount,
          replayedCell(markOf(e)),
          markOf(e)?.by,
          (e.error ?? '').slice(0, 60),
        ]),
      ),
      `${all.length} message(s)${all.length > limit ? `, first ${limit} shown` : ''} · ` +
        inert(
          Object.entries(byReason)
            .map(([r, n]) => `${r}: ${n}`)
            .join(', '),
        ) +
        (marksError
          ? ' · replay marks unavailable'
          : ` · replayed: ${replayed}${unconfirmed ? `, unconfirmed: ${unconfirmed}` : ''}`),
    ].join('\n'),
  };
}
