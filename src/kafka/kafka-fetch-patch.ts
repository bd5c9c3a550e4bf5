import type { Batch } from 'kafkajs';
import { assertPatchedKafkaJs, requireKafkaJs } from './kafkajs-internals';
import { findAbortedRecords, type AbortedTransaction, type FetchedRecord } from './aborted-records';

/**
 * Two corrections to KafkaJS 2.2's fetch for read_committed consumers, installed once per
 * process by createKafka (docs/architecture.md, "Transactional producers"):
 *
 * - **Aborted records**: KafkaJS's own filter lets some through (aborted-records.ts). The
 *   fetch response is rewritten before KafkaJS builds its Batch: every record of an aborted
 *   transaction is flagged `isControlRecord`, and the response's aborted-transaction list is
 *   emptied so KafkaJS's filter has nothing to do. KafkaJS hides flagged records from
 *   `batch.messages` but keeps counting them in `batch.lastOffset()`, which is what an
 *   aborted record needs: never delivered, always passed over (a fetch of nothing but aborted
 *   records and markers still moves the consumer on).
 * - **Last stable offset**: a read_committed consumer can read up to the last stable offset
 *   (LSO: the first offset of the oldest open transaction, else the high watermark), not the
 *   high watermark. The fetch response carries it; KafkaJS drops it. It is kept here, per
 *   fetched partition, for {@link readableEndOf}.
 *
 * Wraps `Broker.prototype.fetch` (kafkajs/src/broker/index.js), the one call every consumer
 * fetch goes through, so it applies to every consumer of the process.
 */

/** src/protocol/isolationLevel.js */
const READ_COMMITTED = 1;

interface FetchedPartition {
  highWatermark: string;
  lastStableOffset?: string;
  abortedTransactions?: AbortedTransaction[] | null;
  messages: FetchedRecord[];
}
interface FetchResponse {
  responses?: Array<{ partitions: FetchedPartition[] }>;
}
type FetchFn = (this: unknown, request: { isolationLevel?: number }) => Promise<FetchResponse>;

/**
 * The last stable offset of each fetched partition, keyed by its records array: KafkaJS's
 * Batch keeps that very array as `rawMessages`, so a batch finds its fetch's LSO again.
 */
const stableOffsets = new WeakMap<object, bigint>();

/** Applies both corrections to one read_committed fetch response, in place. */
export function correctFetchResponse(response: FetchResponse): void {
  for (const topic of response.responses ?? []) {
    for (const partition of topic.partitions) {
      const aborted = findAbortedRecords(partition.messages, partition.abortedTransactions);
      for (const record of aborted) record.isControlRecord = true;
      partition.abortedTransactions = [];
      const lso = BigInt(partition.lastStableOffset ?? '-1');
      if (lso >= 0n) stableOffsets.set(partition.messages, lso);
    }
  }
}

/**
 * The offset a read_committed consumer can read up to in this batch's partition, as of the
 * batch's fetch: the last stable offset when the broker reported one, else the high watermark.
 */
export function readableEndOf(batch: Batch): string {
  const raw = (batch as unknown as { rawMessages?: object }).rawMessages;
  const lso = raw ? stableOffsets.get(raw) : undefined;
  const hw = BigInt(batch.highWatermark);
  return (lso !== undefined && lso < hw ? lso : hw).toString();
}

let installed = false;

/** Wraps KafkaJS's Broker fetch once per process; throws for a KafkaJS it was not written for. */
export function installFetchPatch(): void {
  if (installed) return;
  assertPatchedKafkaJs(
    "kafka-fetch-patch corrects KafkaJS 2.2's read_committed fetch",
    'src/kafka/kafka-fetch-patch.ts against its consumer/batch.js and ' +
      'consumer/filterAbortedMessages.js',
  );
  const Broker = requireKafkaJs('kafkajs/src/broker') as { prototype: { fetch: FetchFn } };
  const original = Broker.prototype.fetch;
  Broker.prototype.fetch = async function fetch(request) {
    const response = await original.call(this, request);
    if ((request.isolationLevel ?? READ_COMMITTED) === READ_COMMITTED)
      correctFetchResponse(response);
    return response;
  };
  installed = true;
}
