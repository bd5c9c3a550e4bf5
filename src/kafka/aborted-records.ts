/**
 * Which fetched records belong to aborted transactions, decided as Kafka's Java consumer
 * decides it for `isolation.level=read_committed` (clients/.../internals/CompletedFetch.java,
 * nextFetchedRecord): per record *batch*, in offset order,
 *
 * 1. every aborted transaction the broker listed whose first offset is at or below the
 *    batch's last offset joins the set of aborted producers (the list is sorted first);
 * 2. a control batch whose marker is ABORT takes its producer out of the set;
 * 3. a transactional data batch of a producer in the set is aborted, all of its records.
 *
 * KafkaJS 2.2.4 decides per record instead (src/consumer/filterAbortedMessages.js), and two
 * of its shortcuts let aborted records through: it moves at most one listed transaction into
 * the aborted set per record, so a fetch that starts inside two producers' aborted
 * transactions passes the first record of the later one; and it takes any record whose key
 * is four zero bytes for an abort marker, so a data record with such a key ends its
 * transaction's filtering early and the rest of that transaction is delivered.
 */

/** The fields of a KafkaJS-decoded record (record v0 decoder) this module reads. */
export interface FetchedRecord {
  offset: string;
  key: Buffer | null;
  isControlRecord?: boolean;
  /** Shared by every record of one record batch; absent for legacy (magic 0/1) message sets. */
  batchContext?: {
    firstOffset: string;
    lastOffsetDelta: number;
    producerId: string;
    inTransaction: boolean;
    isControlBatch: boolean;
  };
}

/** One entry of a fetch response's `aborted_transactions`. */
export interface AbortedTransaction {
  producerId: string;
  firstOffset: string;
}

/** ControlRecordType ABORT (key: int16 version, int16 type; COMMIT is 1). */
const ABORT = 0;

function isAbortMarker(record: FetchedRecord): boolean {
  const key = record.key;
  return key !== null && key.length >= 4 && key.readInt16BE(2) === ABORT;
}

/**
 * The records of `records` (one partition of one fetch response, in offset order) that belong
 * to aborted transactions. Control records are not included: they are never data.
 */
export function findAbortedRecords(
  records: readonly FetchedRecord[],
  abortedTransactions: readonly AbortedTransaction[] | null | undefined,
): Set<FetchedRecord> {
  const aborted = new Set<FetchedRecord>();
  if (!abortedTransactions || abortedTransactions.length === 0) return aborted;
  const pending = [...abortedTransactions].sort((a, b) =>
    BigInt(a.firstOffset) < BigInt(b.firstOffset) ? -1 : 1,
  );
  const abortedProducers = new Set<string>();
  let i = 0;
  while (i < records.length) {
    const context = records[i]!.batchContext;
    let end = i + 1;
    while (end < records.length && records[end]!.batchContext === context) end++;
    if (context && BigInt(context.producerId) >= 0n) {
      const lastOffset = BigInt(context.firstOffset) + BigInt(context.lastOffsetDelta);
      while (pending.length > 0 && BigInt(pending[0]!.firstOffset) <= lastOffset)
        abortedProducers.add(pending.shift()!.producerId);
      if (context.isControlBatch) {
        if (isAbortMarker(records[i]!)) abortedProducers.delete(context.producerId);
      } else if (context.inTransaction && abortedProducers.has(context.producerId)) {
        for (let j = i; j < end; j++) aborted.add(records[j]!);
      }
    }
    i = end;
  }
  return aborted;
}
