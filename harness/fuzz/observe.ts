import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Kafka } from 'kafkajs';
import type pg from 'pg';
import { createLedgerStore } from '../../src/db/ledger-store';
import { readDlqHeaders } from '../../src/events/dlq-message';
import { readTopicsToEnd } from '../../src/kafka/topic-reader';

/** Committed offset (-1: none) and end (high watermark) per partition of a group's topic. */
export interface PartitionOffsets {
  partition: number;
  committed: number;
  end: number;
}

export async function readGroupOffsets(
  kafka: Kafka,
  topic: string,
  groupId: string,
): Promise<PartitionOffsets[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [ends, [committed]] = await Promise.all([
      admin.fetchTopicOffsets(topic),
      admin.fetchOffsets({ groupId, topics: [topic] }),
    ]);
    const byPartition = new Map(committed!.partitions.map((p) => [p.partition, Number(p.offset)]));
    return ends
      .map((p) => ({
        partition: p.partition,
        committed: byPartition.get(p.partition) ?? -1,
        end: Number(p.high),
      }))
      .sort((a, b) => a.partition - b.partition);
  } finally {
    await admin.disconnect();
  }
}

/** A DLQ record as the fuzzer judges it: where it came from and why. */
export interface DlqFact {
  sourceTopic?: string;
  sourcePartition?: number;
  sourceOffset?: number;
  reason?: string;
}

/** Every record of the DLQ topic, to its end, within `timeoutMs` (default 60 s). */
export async function readDlqFacts(
  kafka: Kafka,
  dlqTopic: string,
  timeoutMs = 60_000,
): Promise<DlqFact[]> {
  const facts: DlqFact[] = [];
  await readTopicsToEnd(
    kafka,
    [dlqTopic],
    (_topic, _partition, message) => {
      const dlq = readDlqHeaders(message.headers);
      facts.push({
        sourceTopic: dlq.sourceTopic,
        sourcePartition:
          dlq.sourcePartition === undefined ? undefined : Number(dlq.sourcePartition),
        sourceOffset: dlq.sourceOffset === undefined ? undefined : Number(dlq.sourceOffset),
        reason: dlq.reason,
      });
    },
    { groupId: `onceflow-fuzz-dlq-${randomBytes(4).toString('hex')}`, timeoutMs },
  );
  return facts;
}

/** `partition/offset` of every ledger row (a started event) from `topic`. */
export async function readLedgerCoordinates(
  pool: pg.Pool,
  schema: string,
  topic: string,
): Promise<Set<string>> {
  const rows = await createLedgerStore(pool, { schema }).listCoordinates(topic);
  return new Set(rows.map((r) => `${r.partition}/${r.offset}`));
}

/** What the bridge's log says went wrong, per partition and for the consumer as a whole. */
export interface BridgeTrouble {
  /** Last error logged for a partition, and how many warnings named it. */
  byPartition: Map<number, { lastError: string; count: number; lastMessage: string }>;
  /** Errors that made the consumer restart ('consumer failed; restarting'). */
  restarts: string[];
}

/** Reads the bridge's pino log (JSON lines) for retries, dead-letter failures and restarts. */
export function readBridgeTrouble(logFile: string): BridgeTrouble {
  const trouble: BridgeTrouble = { byPartition: new Map(), restarts: [] };
  let content: string;
  try {
    content = readFileSync(logFile, 'utf8');
  } catch {
    return trouble;
  }
  for (const line of content.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: {
      level?: number;
      msg?: string;
      err?: unknown;
      stack?: unknown;
      error?: unknown;
      partition?: unknown;
    };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    // Our own warnings carry `err`; KafkaJS's (e.g. "Error when calling eachBatch") a stack.
    const err =
      typeof entry.err === 'string'
        ? entry.err
        : typeof entry.stack === 'string'
          ? entry.stack.split('\n')[0]!
          : typeof entry.error === 'string'
            ? entry.error
            : undefined;
    // A dead-lettering is an outcome, not trouble.
    if ((entry.level ?? 0) < 40 || err === undefined || entry.msg === 'dead-lettered') continue;
    if (entry.msg === 'consumer failed; restarting') trouble.restarts.push(err);
    if (typeof entry.partition === 'number') {
      const seen = trouble.byPartition.get(entry.partition);
      trouble.byPartition.set(entry.partition, {
        lastError: err.slice(0, 300),
        count: (seen?.count ?? 0) + 1,
        lastMessage: entry.msg ?? '',
      });
    }
  }
  return trouble;
}
