import type { Admin, IHeaders, Kafka, Message } from 'kafkajs';
import type pg from 'pg';
import {
  beginReplays,
  confirmReplays,
  entryKey,
  withdrawReplays,
  type DlqReplayWrite,
} from '../db/dlq-replay-store';
import { replayHeaders, type DlqEntry } from '../kafka/dlq-reader';
import { readPartitionCount, sendPerPartition } from '../kafka/send-per-partition';
import { REPLAY_OF_HEADER } from './dlq-entries';
import type { RefusedEntry } from './dlq-replay-plan';
import { originalReplayHeaders, type StubOriginal } from './dlq-stub-originals';

/** Messages sent per produce call during a replay. */
export const REPLAY_BATCH = 100;

/** One entry to send: the DLQ record, or for a stub the original read back from its source. */
export interface ReplayItem {
  entry: DlqEntry;
  /** An earlier send of it was begun and never confirmed. */
  resend: boolean;
  original?: Extract<StubOriginal, { found: true }>;
}

/** What a run's sends came to. */
export interface SendOutcome {
  /** Sent and marked `sent`. */
  sent: ReplayItem[];
  /** Begun and maybe sent when the run stopped: marked `sending`, sent again next run. */
  unconfirmed: ReplayItem[];
  /** Originals the source topic refused outright: nothing appended, the mark taken back. */
  refused: RefusedEntry[];
  /** Not attempted: the run stopped before them (no mark; offered next run). */
  notSent: number;
  /** Why the run stopped early. */
  error?: Error;
}

/** The record sent for an item, tagged with the DLQ entry it replays. */
function recordOf(item: ReplayItem): { topic: string; message: Message } {
  const { entry, original } = item;
  const headers: IHeaders = original
    ? originalReplayHeaders(original.headers, entry)
    : replayHeaders(entry.headers);
  headers[REPLAY_OF_HEADER] = entryKey(entry);
  const { key, value } = original ?? entry;
  return { topic: entry.sourceTopic!, message: { key, value, headers } };
}

function writeOf(item: ReplayItem): DlqReplayWrite & { sent: 'entry' | 'original' } {
  return {
    ...item.entry,
    targetTopic: item.entry.sourceTopic,
    sent: item.original ? 'original' : 'entry',
  };
}

/**
 * The broker (or the client's encoder) refused the record outright, so nothing was appended:
 * a non-retriable Kafka protocol error (MESSAGE_TOO_LARGE, INVALID_RECORD, ...) or a
 * TypeError/RangeError from encoding. Retries running out, timeouts and lost connections are
 * not: the record may have been appended.
 */
export function isRefusedOutright(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; depth++) {
    if (e instanceof TypeError || e instanceof RangeError) return true;
    const k = e as Error & { retriable?: boolean };
    if (k.name === 'KafkaJSNumberOfRetriesExceeded') return false;
    if (k.name === 'KafkaJSProtocolError') return k.retriable === false;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Consecutive DLQ records in batches of REPLAY_BATCH; each original alone. */
function chunksOf(items: readonly ReplayItem[]): ReplayItem[][] {
  const chunks: ReplayItem[][] = [];
  let current: ReplayItem[] = [];
  for (const item of items) {
    if (item.original || current.length === REPLAY_BATCH) {
      if (current.length > 0) chunks.push(current);
      current = [];
    }
    if (item.original) chunks.push([item]);
    else current.push(item);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Sends the items in order, each batch between its two marks: `sending` written (and
 * committed) before the produce call, `sent` after the broker acknowledged with acks=all. A
 * crash or failure in between leaves the batch `sending`; the next run sends it again. The run
 * stops at the first batch it cannot send or mark; the items after it are not begun.
 * `client` holds the replay lock.
 */
export async function sendReplays(
  client: pg.PoolClient,
  kafka: Kafka,
  items: readonly ReplayItem[],
  by: string,
  onProgress: (done: number) => void,
): Promise<SendOutcome> {
  const out: SendOutcome = { sent: [], unconfirmed: [], refused: [], notSent: 0 };
  const chunks = chunksOf(items);
  let done = 0;
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  const partitions = new PartitionCounts(kafka.admin());
  await producer.connect();
  try {
    for (const [i, chunk] of chunks.entries()) {
      let own: ReplayItem[] = [];
      try {
        const begun = new Set((await beginReplays(client, chunk.map(writeOf), by)).map(entryKey));
        own = chunk.filter((item) => begun.has(entryKey(item.entry)));
        const byTopic = new Map<string, Message[]>();
        for (const { topic, message } of own.map(recordOf)) {
          const list = byTopic.get(topic) ?? [];
          list.push(message);
          byTopic.set(topic, list);
        }
        try {
          // One produce call per partition: KafkaJS resolves a call spanning several
          // partitions without sending those whose leader moved during it (send-per-partition.ts),
          // and a replay marked `sent` is never offered again.
          await Promise.all(
            [...byTopic].map(async ([topic, messages]) =>
              sendPerPartition(producer, {
                topic,
                messages,
                partitions: await partitions.of(topic),
                acks: -1,
              }),
            ),
          );
        } catch (err) {
          const [only] = own;
          if (own.length !== 1 || !only?.original || !isRefusedOutright(err)) throw err;
          await withdrawReplays(client, [only.entry]);
          out.refused.push({
            entry: only.entry,
            kind: 'stub',
            refusal: `the source topic refused the original: ${(err as Error).message}`,
          });
          continue;
        }
        await confirmReplays(
          client,
          own.map((item) => item.entry),
        );
        out.sent.push(...own);
      } catch (err) {
        out.unconfirmed.push(...own);
        out.error = err as Error;
        out.notSent = chunks.slice(i + 1).reduce((n, c) => n + c.length, 0);
        break;
      } finally {
        done += chunk.length;
        onProgress(done);
      }
    }
  } finally {
    await producer.disconnect();
    await partitions.close();
  }
  return out;
}

/** Each topic's partition count, read once per run (connects on first use). */
class PartitionCounts {
  private readonly counts = new Map<string, Promise<number>>();
  private connected?: Promise<void>;

  constructor(private readonly admin: Admin) {}

  of(topic: string): Promise<number> {
    let count = this.counts.get(topic);
    if (!count) {
      count = this.read(topic);
      // A failed read is not cached: the next chunk asks again.
      count.catch(() => this.counts.delete(topic));
      this.counts.set(topic, count);
    }
    return count;
  }

  private async read(topic: string): Promise<number> {
    this.connected ??= this.admin.connect();
    await this.connected;
    return readPartitionCount(this.admin, topic);
  }

  async close(): Promise<void> {
    if (this.connected) await this.admin.disconnect();
  }
}
