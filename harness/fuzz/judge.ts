import type { FuzzMessage } from './generate';
import type { BridgeTrouble, DlqFact, PartitionOffsets } from './observe';
import type { Placement } from './produce';
import type { TranslationThrow } from './translate-check';

/** What became of one message, as read back from Kafka and the ledger. */
export type Outcome = 'started' | 'deduplicated' | 'dead-lettered' | 'unhandled';

export interface KindRow {
  kind: string;
  messages: number;
  started: number;
  deduplicated: number;
  deadLettered: number;
  unhandled: number;
  /** DLQ reasons of this kind's dead-lettered messages. */
  reasons: Record<string, number>;
}

/** A partition whose committed offset stopped short of its end, and the message it stopped at. */
export interface Wedge {
  partition: number;
  committed: number;
  end: number;
  /** The first message at or past the committed offset with no outcome: where it is stuck. */
  at?: {
    seq: number;
    kind: string;
    codec: string;
    offset: number;
    summary: string;
    /** Why this message is blamed, when known. */
    why?: string;
  };
  /** What the bridge's log last said about this partition. */
  lastError?: string;
  lastLogMessage?: string;
  logWarnings?: number;
}

export interface Judgement {
  outcomes: Map<number, Outcome>;
  byKind: KindRow[];
  dlqByReason: Record<string, number>;
  /** Violations by check; each value is a count (0 = check passed). */
  checks: Record<string, number>;
  /** Up to 20 examples per failed check, for the report. */
  examples: Record<string, string[]>;
  wedges: Wedge[];
}

/** A short, printable description of a message (names JSON-escaped, so odd ones show). */
export function summarize(m: FuzzMessage): string {
  const names = Object.keys(m.headers);
  const values = names.flatMap((n) => {
    const v = m.headers[n]!;
    return Array.isArray(v) ? v : [v];
  });
  const nulls = values.filter((v) => v === null).length;
  const shown = names
    .slice(0, 6)
    .map((n) => JSON.stringify(n.length > 40 ? `${n.slice(0, 40)}…` : n));
  return [
    `key ${m.key === null ? 'null' : `${m.key.length} B`}`,
    `value ${m.value === null ? 'null' : `${m.value.length} B`}`,
    `${values.length} headers, ${names.length} names, ${nulls} null values` +
      (names.length ? `: ${shown.join(', ')}${names.length > 6 ? ', …' : ''}` : ''),
  ].join(', ');
}

export interface JudgeInput {
  topic: string;
  messages: FuzzMessage[];
  placements: Map<number, Placement>;
  offsets: PartitionOffsets[];
  dlq: DlqFact[];
  ledger: Set<string>;
  trouble: BridgeTrouble;
  bridgeExits: number;
  consumerRestarts: number;
  reconcile: { discrepancies: number; error?: string };
  /** Workflows of the run still running after the wait (parked or stuck orders). */
  workflowsRunning: number;
  /** Messages whose translation threw in-process (translate-check.ts). */
  translationThrows: TranslationThrow[];
}

/**
 * Accounts for every produced message and judges the run: each one started, deduplicated (a
 * deliberate redelivery) or dead-lettered with a reason, every partition committed to its
 * end, no bridge exit, no consumer restart, reconcile clean.
 */
export function judgeRun(input: JudgeInput): Judgement {
  const committed = new Map(input.offsets.map((o) => [o.partition, o.committed]));
  const dlqAt = new Map<string, DlqFact>();
  let withoutReason = 0;
  for (const f of input.dlq) {
    if (!f.reason) withoutReason++;
    if (f.sourceTopic === input.topic) dlqAt.set(`${f.sourcePartition}/${f.sourceOffset}`, f);
  }
  const checks: Record<string, number> = {};
  const examples: Record<string, string[]> = {};
  const flag = (check: string, m: FuzzMessage, note: string) => {
    checks[check] = (checks[check] ?? 0) + 1;
    const list = (examples[check] ??= []);
    if (list.length < 20) list.push(`#${m.seq} ${m.kind} (${note}): ${summarize(m)}`);
  };
  const outcomes = new Map<number, Outcome>();
  const rows = new Map<string, KindRow>();
  for (const m of input.messages) {
    const place = input.placements.get(m.seq)!;
    const at = `${m.partition}/${place.offset}`;
    const outcome: Outcome = dlqAt.has(at)
      ? 'dead-lettered'
      : input.ledger.has(at)
        ? 'started'
        : (committed.get(m.partition) ?? -1) > place.offset
          ? 'deduplicated'
          : 'unhandled';
    outcomes.set(m.seq, outcome);
    const row = rows.get(m.kind) ?? {
      kind: m.kind,
      messages: 0,
      started: 0,
      deduplicated: 0,
      deadLettered: 0,
      unhandled: 0,
      reasons: {},
    };
    row.messages++;
    if (outcome === 'started') row.started++;
    else if (outcome === 'deduplicated') row.deduplicated++;
    else if (outcome === 'dead-lettered') {
      row.deadLettered++;
      const reason = dlqAt.get(at)?.reason ?? '(none)';
      row.reasons[reason] = (row.reasons[reason] ?? 0) + 1;
    } else row.unhandled++;
    rows.set(m.kind, row);

    const where = `p${m.partition}@${place.offset}, ${place.codec}`;
    if (outcome === 'unhandled') flag('unhandled-messages', m, where);
    else if (m.expect === 'start' && outcome !== 'started')
      flag('valid-not-started', m, `${where}, ${outcome} ${dlqAt.get(at)?.reason ?? ''}`.trim());
    else if (m.expect === 'dlq' && outcome === 'started') flag('poison-started', m, where);
    else if (m.expect !== 'duplicate' && outcome === 'deduplicated')
      // Neither started nor dead-lettered, yet committed: lost, or an identity collision.
      flag('vanished-or-collided', m, where);
    else if (m.expect === 'duplicate' && outcome !== 'deduplicated')
      flag('redelivery-not-deduplicated', m, `${where}, ${outcome}`);
  }

  // The stuck message: the first one at or past the committed offset that has no outcome
  // (a batch is committed at its end, so handled messages may lie past the committed offset);
  // rather the first such one whose translation throws the error the bridge logged for the
  // partition, as that fails its whole batch.
  const throwsBySeq = new Map(input.translationThrows.map((t) => [t.seq, t.error]));
  const firstStuck = new Map<number, { m: FuzzMessage; offset: number; why?: string }>();
  for (const m of input.messages) {
    if (outcomes.get(m.seq) !== 'unhandled') continue;
    const offset = input.placements.get(m.seq)!.offset;
    const thrown = throwsBySeq.get(m.seq);
    const logged = input.trouble.byPartition.get(m.partition)?.lastError ?? '';
    const why = thrown !== undefined && logged.includes(thrown.slice(0, 60)) ? thrown : undefined;
    const best = firstStuck.get(m.partition);
    const better =
      !best ||
      (why !== undefined && best.why === undefined) ||
      ((why === undefined) === (best.why === undefined) && offset < best.offset);
    if (better) firstStuck.set(m.partition, { m, offset, ...(why ? { why } : {}) });
  }
  const wedges: Wedge[] = input.offsets
    .filter((o) => o.committed < o.end)
    .map((o) => {
      const stuck = firstStuck.get(o.partition);
      const seen = input.trouble.byPartition.get(o.partition);
      return {
        partition: o.partition,
        committed: o.committed,
        end: o.end,
        ...(stuck
          ? {
              at: {
                seq: stuck.m.seq,
                kind: stuck.m.kind,
                codec: input.placements.get(stuck.m.seq)!.codec,
                offset: stuck.offset,
                summary: summarize(stuck.m),
                ...(stuck.why ? { why: `its translation throws ${stuck.why.slice(0, 200)}` } : {}),
              },
            }
          : {}),
        ...(seen
          ? { lastError: seen.lastError, lastLogMessage: seen.lastMessage, logWarnings: seen.count }
          : {}),
      };
    });

  for (const t of input.translationThrows) {
    checks['translation-throws'] = (checks['translation-throws'] ?? 0) + 1;
    const list = (examples['translation-throws'] ??= []);
    if (list.length < 5) list.push(`#${t.seq} ${t.kind}: ${t.error.slice(0, 200)}`);
  }

  const dlqByReason: Record<string, number> = {};
  for (const f of input.dlq)
    dlqByReason[f.reason ?? '(none)'] = (dlqByReason[f.reason ?? '(none)'] ?? 0) + 1;

  return {
    outcomes,
    byKind: [...rows.values()].sort((a, b) => b.messages - a.messages),
    dlqByReason,
    checks: {
      'bridge-exits': input.bridgeExits,
      'consumer-restarts': input.consumerRestarts,
      'wedged-partitions': wedges.length,
      'unhandled-messages': checks['unhandled-messages'] ?? 0,
      'valid-not-started': checks['valid-not-started'] ?? 0,
      'poison-started': checks['poison-started'] ?? 0,
      'vanished-or-collided': checks['vanished-or-collided'] ?? 0,
      'redelivery-not-deduplicated': checks['redelivery-not-deduplicated'] ?? 0,
      'dlq-without-reason': withoutReason,
      'translation-throws': checks['translation-throws'] ?? 0,
      'workflows-still-running': input.workflowsRunning,
      'reconcile-discrepancies': input.reconcile.discrepancies,
      'reconcile-failed': input.reconcile.error ? 1 : 0,
    },
    examples,
    wedges,
  };
}
