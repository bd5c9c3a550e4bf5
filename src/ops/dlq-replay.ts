import type pg from 'pg';
import { tryLockReplays, unlockReplays } from '../db/dlq-replay-store';
import { parseArgsOrUsage } from '../util/usage-error';
import { confirmAction } from './confirm';
import type { OpsContext } from './context';
import { countBy, describeEntry, dlqTopics, readEntries } from './dlq-entries';
import { loadReplayMarks } from './dlq-replay-marks';
import { planReplay, type RefusalKind, type RefusedEntry } from './dlq-replay-plan';
import { sendReplays, type ReplayItem, type SendOutcome } from './dlq-replay-send';
import { fetchStubOriginals } from './dlq-stub-originals';
import { operatorActionOf } from './operator-action';
import {
  createProgress,
  EXIT,
  formatTable,
  inert,
  InvalidStateError,
  UsageError,
  type CommandResult,
} from './output';

/** Longest `--by` kept in a mark. */
const MAX_BY_LENGTH = 200;

interface ReplayArgs {
  reason?: string;
  topics: string[];
  by: string;
  dryRun: boolean;
  yes: boolean;
}

/**
 * `dlq replay [--reason R] [--topic T] [--by NAME] [--dry-run] [--yes]`: republishes each DLQ
 * entry not replayed before to its source topic, with the original key and headers plus
 * `onceflow-replay-of`; a stub's original is read back from its source coordinates instead
 * (dlq-stub-originals.ts). Each entry is replayed at most once, ever: a per-entry mark in
 * Postgres (dlq-replay-store.ts), `sending` before its batch is produced and `sent` after the
 * broker acknowledged, decides, and refused entries get none. Only topics in KAFKA_TOPICS are
 * written to. Asks before sending unless `--yes`; prints and logs an audit line (who, how
 * many, which reasons). One live replay per database schema at a time.
 */
export async function replayDlq(ctx: OpsContext, argv: string[]): Promise<CommandResult> {
  const { values } = parseArgsOrUsage({
    args: argv,
    options: {
      reason: { type: 'string' },
      topic: { type: 'string' },
      by: { type: 'string' },
      'dry-run': { type: 'boolean' },
      yes: { type: 'boolean' },
    },
    strict: true,
  });
  const { by } = operatorActionOf({ by: values.by });
  if (by.length > MAX_BY_LENGTH)
    throw new UsageError(`--by must be at most ${MAX_BY_LENGTH} characters`);
  const args: ReplayArgs = {
    reason: values.reason,
    topics: dlqTopics(ctx, values.topic),
    by,
    dryRun: values['dry-run'] ?? false,
    yes: values.yes === true,
  };
  if (args.dryRun) return replay(ctx, args, undefined);
  // The lock is held from reading the marks to writing the last one: two operators replaying
  // at once would otherwise both find an entry unsent and both send it.
  const client = await ctx.db().connect();
  let locked = false;
  try {
    locked = await tryLockReplays(client);
    if (!locked)
      throw new InvalidStateError(
        'another dlq replay is running on this database schema; run again once it has finished',
      );
    return await replay(ctx, args, client);
  } finally {
    const unlocked =
      !locked ||
      (await unlockReplays(client).then(
        () => true,
        () => false,
      ));
    // A session that may still hold the lock is closed rather than returned to the pool.
    client.release(!unlocked);
  }
}

async function replay(
  ctx: OpsContext,
  args: ReplayArgs,
  client: pg.PoolClient | undefined,
): Promise<CommandResult> {
  const kafka = ctx.kafkaClient();
  const allowed = new Set(ctx.config.kafka.topics);
  const entries = await readEntries(ctx, args.topics, args.reason);
  const marks = await loadReplayMarks(
    { pool: ctx.db(), kafka, bridgeGroupId: ctx.config.kafka.groupId, allowed },
    args.topics,
    entries,
  );
  const plan = planReplay(entries, marks.of, allowed);
  const stubs = plan.send.filter((s) => s.entry.stub).map((s) => s.entry);
  const originals = await fetchStubOriginals(kafka, stubs);
  const refused: RefusedEntry[] = [...plan.refused];
  const items: ReplayItem[] = [];
  for (const s of plan.send) {
    const original = s.entry.stub ? originals.get(s.entry)! : undefined;
    if (original === undefined) items.push(s);
    else if (original.found) items.push({ ...s, original });
    else refused.push({ entry: s.entry, kind: 'stub', refusal: `stub: ${original.refusal}` });
  }

  let cancelled = false;
  if (!args.dryRun && items.length > 0) {
    const targets = [...new Set(items.map((i) => i.entry.sourceTopic!))].join(', ');
    cancelled = !(await confirmAction(
      `Replay ${items.length} message(s) to ${targets}?`,
      args.yes,
    ));
  }
  const live = !args.dryRun && !cancelled;
  let outcome: SendOutcome = { sent: [], unconfirmed: [], refused: [], notSent: 0 };
  if (live && items.length > 0) {
    const progress = createProgress('replaying', items.length, { every: 100 });
    outcome = await sendReplays(client!, kafka, items, args.by, (n) => progress.update(n));
  }
  refused.push(...outcome.refused);
  return report(args, { entries: entries.length, items, refused, outcome, cancelled, marks, plan });
}

function report(
  args: ReplayArgs,
  run: {
    entries: number;
    items: ReplayItem[];
    refused: RefusedEntry[];
    outcome: SendOutcome;
    cancelled: boolean;
    marks: { adopted: number };
    plan: { already: unknown[] };
  },
): CommandResult {
  const { outcome, refused } = run;
  const refusedOf = (kind: RefusalKind) => refused.filter((r) => r.kind === kind).length;
  const audit = {
    by: args.by,
    replayed: outcome.sent.length,
    resent: outcome.sent.filter((i) => i.resend).length,
    reasons: countBy(outcome.sent.map((i) => i.entry)),
    dryRun: args.dryRun,
    cancelled: run.cancelled,
    alreadyReplayed: run.plan.already.length,
    adoptedGroupMarks: run.marks.adopted,
    refusedForeignTopic: refusedOf('foreign-topic'),
    refusedStub: refusedOf('stub'),
    skippedWithoutSource: refusedOf('no-source'),
    unconfirmed: outcome.unconfirmed.length,
    notSent: outcome.notSent,
    error: outcome.error?.message,
    dlqTopics: args.topics,
  };
  // The audit line goes to stderr as a JSON log line too, so it lands in whatever collects logs.
  process.stderr.write(
    `${JSON.stringify({ level: outcome.error ? 50 : 30, time: Date.now(), name: 'ops', msg: 'dlq replay', ...audit })}\n`,
  );
  const messages = run.items.map((i) => ({
    ...describeEntry(i.entry),
    replayTo: i.entry.sourceTopic!,
    resend: i.resend,
    ...(i.original ? { fromSource: i.original.source } : {}),
  }));
  const shown = args.dryRun || run.cancelled ? run.items : outcome.sent;
  const verb = args.dryRun
    ? 'would replay'
    : run.cancelled
      ? 'cancelled; would have replayed'
      : 'replayed';
  const reasons = inert(
    Object.entries(countBy(shown.map((i) => i.entry)))
      .map(([r, n]) => `${r}: ${n}`)
      .join(', '),
  );
  const lines = [
    formatTable(
      ['DLQ', 'PART', 'OFFSET', 'KEY', 'REASON', 'TO', 'NOTE'],
      messages.map((m) => [
        m.dlqTopic,
        m.partition,
        m.offset,
        m.key ?? undefined,
        m.reason,
        m.replayTo,
        [
          m.resend ? 'unconfirmed before, sent again' : '',
          m.fromSource ? `original at ${m.fromSource.partition}/${m.fromSource.offset}` : '',
        ]
          .filter(Boolean)
          .join('; '),
      ]),
    ),
  ];
  if (refused.length > 0) {
    lines.push(
      '',
      formatTable(
        ['REFUSED DLQ', 'PART', 'OFFSET', 'KEY', 'REASON', 'WHY'],
        refused.map(({ entry: e, refusal }) => [
          e.dlqTopic,
          e.partition,
          e.offset,
          e.key?.toString('utf8'),
          e.reason,
          refusal,
        ]),
      ),
    );
  }
  lines.push(
    `audit: ${inert(args.by)} ${verb} ${shown.length} message(s)${reasons ? ` (${reasons})` : ''}` +
      (audit.resent ? `, ${audit.resent} of them unconfirmed before` : '') +
      (audit.alreadyReplayed ? `; ${audit.alreadyReplayed} replayed before, skipped` : '') +
      (audit.adoptedGroupMarks
        ? ` (${audit.adoptedGroupMarks} marks copied from the old consumer groups)`
        : '') +
      (refused.length ? `; ${refused.length} refused, not marked (see WHY)` : ''),
  );
  if (outcome.error) {
    lines.push(
      `stopped: ${inert(outcome.error.message)}; ${outcome.unconfirmed.length} message(s) sent ` +
        `but not confirmed (marked sending: the next replay sends them again, which the bridge ` +
        `deduplicates), ${outcome.notSent} not attempted`,
    );
  }
  return {
    json: {
      ...audit,
      matched: run.entries,
      refused: refused.map((r) => ({ ...describeEntry(r.entry), refusal: r.refusal })),
      messages,
    },
    human: lines.join('\n'),
    exitCode: run.cancelled || outcome.error ? EXIT.failure : undefined,
  };
}
